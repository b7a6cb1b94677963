/*
 * A stand-in for libcuda.so.1 and libnvidia-ml.so.1 used by the doctor tests: it answers the few
 * driver and NVML calls kernelpro makes with one fake H200, or with errors when KP_FAKE_CUDA_FAIL is set.
 */
#include <stdlib.h>
#include <string.h>

static int fail(void)
{
	const char *f = getenv("KP_FAKE_CUDA_FAIL");
	return f && *f;
}

int cuInit(unsigned flags);
int cuInit(unsigned flags)
{
	(void)flags;
	return fail() ? 100 : 0; /* CUDA_ERROR_NO_DEVICE */
}

int cuDriverGetVersion(int *v);
int cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}

int cuDeviceGetCount(int *n);
int cuDeviceGetCount(int *n)
{
	*n = fail() ? 0 : 1;
	return 0;
}

int cuDeviceGet(int *dev, int i);
int cuDeviceGet(int *dev, int i)
{
	*dev = i;
	return 0;
}

int cuDeviceGetName(char *name, int len, int dev);
int cuDeviceGetName(char *name, int len, int dev)
{
	(void)dev;
	const char *s = "NVIDIA H200 (fake)";
	size_t n = strlen(s);
	if ((size_t)len <= n)
		return 1;
	memcpy(name, s, n + 1);
	return 0;
}

int cuDeviceTotalMem_v2(size_t *bytes, int dev);
int cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
	(void)dev;
	*bytes = (size_t)143771 << 20;
	return 0;
}

int cuDeviceGetAttribute(int *v, int attr, int dev);
int cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	switch (attr) {
	case 75: *v = 9; break;   /* compute capability major */
	case 76: *v = 0; break;
	case 16: *v = 132; break; /* SMs */
	default: *v = 0;
	}
	return 0;
}

int cuGetErrorString(int e, const char **s);
int cuGetErrorString(int e, const char **s)
{
	*s = e == 100 ? "no CUDA-capable device is detected" : "unknown";
	return 0;
}

/* NVML */
int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
	return fail() ? 9 : 0; /* NVML_ERROR_DRIVER_NOT_LOADED */
}
int nvmlShutdown(void);
int nvmlShutdown(void)
{
	return 0;
}
const char *nvmlErrorString(int e);
const char *nvmlErrorString(int e)
{
	return e == 9 ? "Driver Not Loaded" : "Unknown Error";
}
int nvmlSystemGetDriverVersion(char *b, unsigned n);
int nvmlSystemGetDriverVersion(char *b, unsigned n)
{
	if (n < 8)
		return 1;
	memcpy(b, "999.99", 7);
	return 0;
}
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = 1;
	return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h)
{
	*h = (void *)(size_t)(i + 1);
	return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(void *h, unsigned long long *mj);
int nvmlDeviceGetTotalEnergyConsumption(void *h, unsigned long long *mj)
{
	(void)h;
	*mj = 123456;
	return 0;
}
