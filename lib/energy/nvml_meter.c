/* NVML as an energy meter: the total-energy counter plus power, clocks and temperature beside it. */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "kernelpro/device.h"
#include "kernelpro/energy.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

/* nvml.h values, declared here because the toolkit ships no nvml.h. */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0, NVML_ERROR_NOT_SUPPORTED = 3 };

struct kp_energy_nvml {
	struct kp_nvml nvml;
	void *dev;
	char name[128];
	double limit_w;
};

static const char *nvml_msg(const struct kp_energy_nvml *n, int r)
{
	return n->nvml.error_string ? n->nvml.error_string(r) : "unknown error";
}

int kp_energy_nvml_select(struct kp_energy_nvml *n, const char *pci_bus_id, int index, struct kp_error *err)
{
	unsigned long long mj = 0;
	unsigned mw = 0;
	int r;

	if (pci_bus_id && *pci_bus_id && n->nvml.device_handle_by_pci_bus_id) {
		r = n->nvml.device_handle_by_pci_bus_id(pci_bus_id, &n->dev);
		if (r)
			return kp_error_set(err, KP_ENODEV, "energy unavailable: NVML does not know the GPU at %s (%s)",
					    pci_bus_id, nvml_msg(n, r));
	} else {
		r = n->nvml.device_handle_by_index ? n->nvml.device_handle_by_index((unsigned)index, &n->dev) : -1;
		if (r)
			return kp_error_set(err, KP_ENODEV, "energy unavailable: NVML has no GPU %d (%s)", index,
					    r > 0 ? nvml_msg(n, r) : "no lookup by index");
	}
	r = n->nvml.device_total_energy(n->dev, &mj);
	if (r)
		return kp_error_set(err, r == NVML_ERROR_NOT_SUPPORTED ? KP_EUNSUPPORTED : KP_EIO,
				    "energy unavailable: the GPU's total-energy counter cannot be read (%s); it needs Volta or newer",
				    nvml_msg(n, r));
	if (!n->nvml.device_name || n->nvml.device_name(n->dev, n->name, sizeof(n->name)) != 0)
		kp_strlcpy(n->name, "unknown GPU", sizeof(n->name));
	n->limit_w = NAN;
	if (n->nvml.device_power_limit && n->nvml.device_power_limit(n->dev, &mw) == 0)
		n->limit_w = mw / 1000.0;
	return 0;
}

int kp_energy_nvml_open(struct kp_energy_nvml **out, const char *pci_bus_id, int index, struct kp_error *err)
{
	struct kp_energy_nvml *n = kp_xcalloc(1, sizeof(*n));
	int rc;

	*out = NULL;
	if ((rc = kp_nvml_open(&n->nvml, err))) {
		kp_error_prefix(err, "energy unavailable");
		free(n);
		return rc;
	}
	if (!n->nvml.device_total_energy) {
		rc = kp_error_set(err, KP_ENOTOOL,
				  "energy unavailable: this NVML has no nvmlDeviceGetTotalEnergyConsumption (driver too old)");
		goto out;
	}
	if ((pci_bus_id && *pci_bus_id) || index >= 0)
		rc = kp_energy_nvml_select(n, pci_bus_id, index, err);
out:
	if (rc) {
		kp_nvml_close(&n->nvml);
		free(n);
		return rc;
	}
	*out = n;
	return 0;
}

static double nvml_now(void *ud)
{
	(void)ud;
	return kp_now();
}

static void nvml_sleep(void *ud, double s)
{
	struct timespec ts;
	(void)ud;
	if (!(s > 0))
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int nvml_read(void *ud, struct kp_energy_reading *r, struct kp_error *err)
{
	struct kp_energy_nvml *n = ud;
	unsigned long long mj = 0;
	unsigned v = 0;
	int rc = n->nvml.device_total_energy(n->dev, &mj);

	r->t = kp_now();
	if (rc)
		return kp_error_set(err, KP_EIO, "NVML: reading the energy counter failed (%s)", nvml_msg(n, rc));
	r->energy_j = (double)mj / 1000.0;
	r->power_w = n->nvml.device_power_usage && n->nvml.device_power_usage(n->dev, &v) == 0 ? v / 1000.0 : NAN;
	r->sm_clock_mhz = n->nvml.device_clock && n->nvml.device_clock(n->dev, NVML_CLOCK_SM, &v) == 0 ? v : NAN;
	r->mem_clock_mhz = n->nvml.device_clock && n->nvml.device_clock(n->dev, NVML_CLOCK_MEM, &v) == 0 ? v : NAN;
	r->temp_c = n->nvml.device_temperature && n->nvml.device_temperature(n->dev, NVML_TEMPERATURE_GPU, &v) == 0
			    ? v
			    : NAN;
	return 0;
}

void kp_energy_nvml_meter(struct kp_energy_nvml *n, struct kp_energy_meter *m)
{
	memset(m, 0, sizeof(*m));
	m->ud = n;
	m->read = nvml_read;
	m->now = nvml_now;
	m->sleep = nvml_sleep;
	kp_strlcpy(m->device, n->name, sizeof(m->device));
	m->power_limit_w = n->limit_w;
}

void kp_energy_nvml_close(struct kp_energy_nvml *n)
{
	if (!n)
		return;
	kp_nvml_close(&n->nvml);
	free(n);
}
