/* Device query through the CUDA driver API, loaded at run time so kernelpro runs without a GPU. */
#include "base/setup.h"

#include <dlfcn.h>

#include "kernelpro/device.h"
#include "kernelpro/str.h"

/* Driver API values (cuda.h), declared here so the C build needs no CUDA headers. */
enum {
	CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
	CU_ATTR_CLOCK_RATE = 13,
	CU_ATTR_MULTIPROCESSOR_COUNT = 16,
	CU_ATTR_MEMORY_CLOCK_RATE = 36,
	CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
	CU_ATTR_L2_CACHE_SIZE = 38,
	CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	CU_ATTR_CC_MAJOR = 75,
	CU_ATTR_CC_MINOR = 76,
	CU_ATTR_MAX_SMEM_PER_SM = 81,
	CU_ATTR_MAX_REGS_PER_SM = 82,
	CUDA_ERROR_NO_DEVICE = 100,
};

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_mem_fn)(size_t *, int);
typedef int (*cu_ver_fn)(int *);
typedef int (*cu_pci_fn)(char *, int, int);
typedef int (*cu_errstr_fn)(int, const char **);

static int attr(cu_attr_fn f, int dev, int which)
{
	int v = 0;
	return f(&v, which, dev) == 0 ? v : 0;
}

int kp_device_query(struct kp_gpu_list *out, struct kp_error *err)
{
	const char *libname = getenv("KP_LIBCUDA");
	void *lib;
	cu_init_fn cu_init;
	cu_count_fn cu_count;
	cu_get_fn cu_get;
	cu_name_fn cu_name;
	cu_attr_fn cu_attr;
	cu_mem_fn cu_mem;
	cu_ver_fn cu_ver;
	cu_pci_fn cu_pci;
	cu_errstr_fn cu_errstr;
	int rc = 0, n = 0, r;

	memset(out, 0, sizeof(*out));
	if (!libname || !*libname)
		libname = "libcuda.so.1";
	lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return kp_error_set(err, KP_ENOTOOL, "no CUDA driver ('%s' not found): no NVIDIA driver on this machine",
				    libname);
	cu_init = (cu_init_fn)dlsym(lib, "cuInit");
	cu_count = (cu_count_fn)dlsym(lib, "cuDeviceGetCount");
	cu_get = (cu_get_fn)dlsym(lib, "cuDeviceGet");
	cu_name = (cu_name_fn)dlsym(lib, "cuDeviceGetName");
	cu_attr = (cu_attr_fn)dlsym(lib, "cuDeviceGetAttribute");
	cu_mem = (cu_mem_fn)dlsym(lib, "cuDeviceTotalMem_v2");
	cu_ver = (cu_ver_fn)dlsym(lib, "cuDriverGetVersion");
	cu_pci = (cu_pci_fn)dlsym(lib, "cuDeviceGetPCIBusId");
	cu_errstr = (cu_errstr_fn)dlsym(lib, "cuGetErrorString");
	if (!cu_init || !cu_count || !cu_get || !cu_name || !cu_attr || !cu_mem) {
		rc = kp_error_set(err, KP_ENOTOOL, "'%s' lacks the driver API entry points kernelpro needs", libname);
		goto out;
	}
	if (cu_ver)
		cu_ver(&out->driver_version);
	r = cu_init(0);
	if (r != 0) {
		const char *s = NULL;
		if (cu_errstr)
			cu_errstr(r, &s);
		rc = kp_error_set(err, KP_ENODEV, "the CUDA driver found no usable GPU (cuInit: %s, error %d)",
				  s ? s : "unknown", r);
		goto out;
	}
	if (cu_count(&n) != 0 || n == 0) {
		rc = kp_error_set(err, KP_ENODEV, "the CUDA driver reports no GPU");
		goto out;
	}
	if (n > KP_MAX_GPUS)
		n = KP_MAX_GPUS;
	for (int i = 0; i < n; i++) {
		struct kp_gpu *g = &out->gpus[out->count];
		int dev;
		if (cu_get(&dev, i) != 0)
			continue;
		g->index = i;
		if (cu_name(g->name, (int)sizeof(g->name), dev) != 0)
			kp_strlcpy(g->name, "unknown", sizeof(g->name));
		cu_mem(&g->total_mem, dev);
		g->cc_major = attr(cu_attr, dev, CU_ATTR_CC_MAJOR);
		g->cc_minor = attr(cu_attr, dev, CU_ATTR_CC_MINOR);
		g->sm_count = attr(cu_attr, dev, CU_ATTR_MULTIPROCESSOR_COUNT);
		g->sm_clock_khz = attr(cu_attr, dev, CU_ATTR_CLOCK_RATE);
		g->mem_clock_khz = attr(cu_attr, dev, CU_ATTR_MEMORY_CLOCK_RATE);
		g->mem_bus_bits = attr(cu_attr, dev, CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH);
		g->l2_bytes = attr(cu_attr, dev, CU_ATTR_L2_CACHE_SIZE);
		g->smem_per_sm = attr(cu_attr, dev, CU_ATTR_MAX_SMEM_PER_SM);
		g->regs_per_sm = attr(cu_attr, dev, CU_ATTR_MAX_REGS_PER_SM);
		g->max_threads_per_sm = attr(cu_attr, dev, CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
		if (cu_pci)
			cu_pci(g->pci_bus_id, (int)sizeof(g->pci_bus_id), dev);
		out->count++;
	}
out:
	dlclose(lib);
	return rc;
}

int kp_nvml_open(struct kp_nvml *n, struct kp_error *err)
{
	const char *libname = getenv("KP_LIBNVML");
	int r;
	memset(n, 0, sizeof(*n));
	if (!libname || !*libname)
		libname = "libnvidia-ml.so.1";
	n->lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib)
		return kp_error_set(err, KP_ENOTOOL, "NVML unavailable ('%s' not found): energy and power cannot be read",
				    libname);
#define KP_NVML_SYM(field, sym) *(void **)(&n->field) = dlsym(n->lib, sym)
	KP_NVML_SYM(init, "nvmlInit_v2");
	KP_NVML_SYM(shutdown, "nvmlShutdown");
	KP_NVML_SYM(error_string, "nvmlErrorString");
	KP_NVML_SYM(system_driver_version, "nvmlSystemGetDriverVersion");
	KP_NVML_SYM(device_count, "nvmlDeviceGetCount_v2");
	KP_NVML_SYM(device_handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
	KP_NVML_SYM(device_handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
	KP_NVML_SYM(device_name, "nvmlDeviceGetName");
	KP_NVML_SYM(device_total_energy, "nvmlDeviceGetTotalEnergyConsumption");
	KP_NVML_SYM(device_power_usage, "nvmlDeviceGetPowerUsage");
	KP_NVML_SYM(device_clock, "nvmlDeviceGetClockInfo");
	KP_NVML_SYM(device_temperature, "nvmlDeviceGetTemperature");
	KP_NVML_SYM(device_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
#undef KP_NVML_SYM
	if (!n->init || !n->shutdown) {
		dlclose(n->lib);
		n->lib = NULL;
		return kp_error_set(err, KP_ENOTOOL, "'%s' is not a usable NVML library", libname);
	}
	r = n->init();
	if (r != 0) {
		/* The message lives in the library: format it before unloading. */
		kp_error_set(err, KP_ENODEV, "NVML could not start (%s, error %d)",
			     n->error_string ? n->error_string(r) : "unknown", r);
		dlclose(n->lib);
		n->lib = NULL;
		return KP_ENODEV;
	}
	return 0;
}

void kp_nvml_close(struct kp_nvml *n)
{
	if (n->lib) {
		n->shutdown();
		dlclose(n->lib);
	}
	memset(n, 0, sizeof(*n));
}
