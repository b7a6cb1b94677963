/* The hardware model a run uses: the spec matched to the device present, scaled to it, with measured ceilings. */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "kernelpro/fs.h"
#include "kernelpro/hw.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

/* FP32 lanes per SM by architecture, for a GPU that is not in the table. */
static int fp32_lanes(int major, int minor)
{
	if (major == 8 && minor == 0)
		return 64;
	if (major >= 7 && !(major == 8 && minor > 0) && major < 9)
		return 64;
	return 128;
}

/* A spec for a device the table does not know, from what the driver reports. */
static void spec_from_device(struct kp_hw_spec *s, const struct kp_gpu *g)
{
	memset(s, 0, sizeof(*s));
	s->key = "unknown";
	s->name = "unknown GPU (estimated from device attributes)";
	s->match = "";
	s->cc_major = g->cc_major;
	s->cc_minor = g->cc_minor;
	s->sm_count = g->sm_count;
	s->boost_clock_hz = g->sm_clock_khz * 1e3;
	/* DDR: two transfers per memory clock */
	s->dram_bw = 2.0 * g->mem_clock_khz * 1e3 * g->mem_bus_bits / 8.0;
	s->dram_bytes = (double)g->total_mem;
	s->l2_bytes = g->l2_bytes;
	s->smem_per_sm = g->smem_per_sm;
	s->regs_per_sm = g->regs_per_sm;
	s->max_threads_per_sm = g->max_threads_per_sm;
	s->fp32 = 2.0 * fp32_lanes(g->cc_major, g->cc_minor) * g->sm_count * s->boost_clock_hz;
}

static void fill_from_spec(struct kp_hw *hw, const struct kp_hw_spec *s, double scale)
{
	hw->spec = *s;
	hw->dram_bw = s->dram_bw;
	hw->fp32 = s->fp32 * scale;
	hw->fp64 = s->fp64 * scale;
	hw->bf16_tc = s->bf16_tc * scale;
	hw->tf32_tc = s->tf32_tc * scale;
	hw->fp16 = (s->fp16 > 0 ? s->fp16 : 2 * s->fp32) * scale;
	hw->fp16_tc = s->fp16_tc * scale;
	hw->fp8_tc = s->fp8_tc * scale;
	hw->int8_tc = s->int8_tc * scale;
	hw->fp64_tc = s->fp64_tc * scale;
}

int kp_hw_calibration_path(const char *key, struct kp_buf *out, struct kp_error *err)
{
	int rc = kp_cache_dir(out, err);
	if (rc)
		return rc;
	kp_buf_addf(out, "/hw/%s.json", key);
	return 0;
}

static void num_or_zero(const json_t *o, const char *k, double *out)
{
	double v = kp_json_num(o, k, 0);
	*out = isfinite(v) && v > 0 ? v : 0;
}

static int from_json(struct kp_hw_calibration *c, const json_t *o, const char *what, struct kp_error *err)
{
	const char *s;
	memset(c, 0, sizeof(*c));
	if (!json_is_object(o))
		return kp_error_set(err, KP_EPARSE, "%s: not a JSON object", what);
	if (kp_json_int(o, "schema", 0) != 1)
		return kp_error_set(err, KP_EPARSE, "%s: unknown calibration schema (want 1)", what);
	if (kp_json_req_str(o, "device", what, &s, err))
		return KP_EPARSE;
	kp_strlcpy(c->device, s, sizeof(c->device));
	kp_strlcpy(c->key, kp_json_str(o, "key", ""), sizeof(c->key));
	kp_strlcpy(c->measured_at, kp_json_str(o, "measured_at", ""), sizeof(c->measured_at));
	num_or_zero(o, "dram_bw", &c->dram_bw);
	num_or_zero(o, "fp32", &c->fp32);
	num_or_zero(o, "fp64", &c->fp64);
	num_or_zero(o, "bf16_tc", &c->bf16_tc);
	num_or_zero(o, "tf32_tc", &c->tf32_tc);
	num_or_zero(o, "fp16_tc", &c->fp16_tc);
	num_or_zero(o, "sm_clock_hz", &c->sm_clock_hz);
	if (!(c->dram_bw > 0 || c->fp32 > 0))
		return kp_error_set(err, KP_EPARSE, "%s: neither dram_bw nor fp32 was measured", what);
	return 0;
}

int kp_hw_calibration_from_json(struct kp_hw_calibration *c, const char *what, const char *text, size_t len,
				struct kp_error *err)
{
	json_t *o = NULL;
	int rc = kp_json_load_mem(what, text, len, &o, err);
	if (!rc)
		rc = from_json(c, o, what, err);
	json_decref(o);
	return rc;
}

int kp_hw_calibration_load(struct kp_hw_calibration *c, const char *path, struct kp_error *err)
{
	json_t *o = NULL;
	int rc = kp_json_load_file(path, 1 << 20, &o, err);
	if (!rc)
		rc = from_json(c, o, path, err);
	json_decref(o);
	return rc;
}

int kp_hw_calibration_save(const struct kp_hw_calibration *c, const char *path, struct kp_error *err)
{
	json_t *o = json_object();
	struct kp_buf dir = KP_BUF_INIT;
	const char *slash = strrchr(path, '/');
	int rc = 0;
	kp_json_set(o, "schema", json_integer(1));
	kp_json_set(o, "key", json_string(c->key));
	kp_json_set(o, "device", json_string(c->device));
	kp_json_set(o, "measured_at", json_string(c->measured_at));
	kp_json_set(o, "dram_bw", kp_json_real(c->dram_bw));
	kp_json_set(o, "fp32", kp_json_real(c->fp32));
	kp_json_set(o, "fp64", kp_json_real(c->fp64));
	kp_json_set(o, "bf16_tc", kp_json_real(c->bf16_tc));
	kp_json_set(o, "tf32_tc", kp_json_real(c->tf32_tc));
	kp_json_set(o, "fp16_tc", kp_json_real(c->fp16_tc));
	kp_json_set(o, "sm_clock_hz", kp_json_real(c->sm_clock_hz));
	if (slash) {
		kp_buf_add(&dir, path, (size_t)(slash - path));
		rc = kp_mkdir_p(dir.buf, 0755, err);
	}
	if (!rc)
		rc = kp_json_write_file(path, o, err);
	kp_buf_release(&dir);
	json_decref(o);
	return rc;
}

void kp_hw_apply_calibration(struct kp_hw *hw, const struct kp_hw_calibration *c, const char *path)
{
	if (c->dram_bw > 0)
		hw->dram_bw = c->dram_bw;
	if (c->fp32 > 0)
		hw->fp32 = c->fp32;
	if (c->fp64 > 0)
		hw->fp64 = c->fp64;
	if (c->bf16_tc > 0)
		hw->bf16_tc = c->bf16_tc;
	if (c->tf32_tc > 0)
		hw->tf32_tc = c->tf32_tc;
	if (c->fp16_tc > 0)
		hw->fp16_tc = c->fp16_tc;
	hw->calibrated = 1;
	snprintf(hw->source, sizeof(hw->source), "measured %.10s on %.80s", c->measured_at, c->device);
	kp_strlcpy(hw->calibration, path ? path : "", sizeof(hw->calibration));
}

int kp_hw_load(struct kp_hw *hw, const char *key, int index, struct kp_error *err)
{
	const struct kp_hw_spec *s = NULL;
	struct kp_hw_spec est;
	struct kp_buf path = KP_BUF_INIT;
	struct kp_hw_calibration cal;
	double scale = 1.0;
	int rc = 0;

	memset(hw, 0, sizeof(*hw));
	if (key && *key) {
		s = kp_hw_spec_find(key);
		if (!s)
			return kp_error_set(err, KP_ENOENT, "unknown GPU '%s'; 'kernelpro hw show --list' lists the keys",
					    key);
		fill_from_spec(hw, s, 1.0);
		kp_strlcpy(hw->source, "datasheet", sizeof(hw->source));
	} else {
		struct kp_gpu_list gl;
		const struct kp_gpu *g;
		rc = kp_device_query(&gl, err);
		if (rc == KP_ENOTOOL || (rc == 0 && gl.count == 0))
			rc = KP_ENODEV;
		if (rc) {
			static const char msg[] = "no GPU to model; pass --gpu-model KEY to work offline (e.g. --gpu-model "
					   "h200-sxm; --hw KEY in optimize and tune)";
			if (err && err->code) {
				kp_error_prefix(err, "%s", msg);
				err->code = KP_ENODEV;
				return KP_ENODEV;
			}
			return kp_error_set(err, KP_ENODEV, "%s", msg);
		}
		if (index < 0 || index >= gl.count)
			return kp_error_set(err, KP_EINVAL, "GPU index %d out of range (%d present)", index, gl.count);
		g = &gl.gpus[index];
		s = kp_hw_spec_find(g->name);
		if (!s) {
			spec_from_device(&est, g);
			s = &est;
			fill_from_spec(hw, s, 1.0);
			snprintf(hw->source, sizeof(hw->source), "estimated from device attributes (not in the table)");
		} else {
			/* A SKU or partition with fewer SMs, or another boost clock, scales the compute peaks. */
			if (g->sm_count > 0 && g->sm_count != s->sm_count)
				scale *= (double)g->sm_count / s->sm_count;
			if (g->sm_clock_khz > 0 && fabs(g->sm_clock_khz * 1e3 - s->boost_clock_hz) > 0.02 * s->boost_clock_hz)
				scale *= g->sm_clock_khz * 1e3 / s->boost_clock_hz;
			fill_from_spec(hw, s, scale);
			if (g->sm_count > 0)
				hw->spec.sm_count = g->sm_count;
			snprintf(hw->source, sizeof(hw->source), scale != 1.0 ? "datasheet, scaled to %d SMs at %.0f MHz" : "datasheet",
				 g->sm_count, g->sm_clock_khz / 1e3);
		}
		hw->from_device = 1;
		kp_strlcpy(hw->device, g->name, sizeof(hw->device));
	}
	/* Measured ceilings for this GPU model, when `kernelpro hw calibrate` stored them. */
	if (kp_hw_calibration_path(hw->spec.key, &path, NULL) == 0 && kp_path_exists(path.buf)) {
		struct kp_error cerr = KP_ERROR_INIT;
		if (kp_hw_calibration_load(&cal, path.buf, &cerr) == 0) {
			if (!hw->from_device || !strcmp(cal.device, hw->device))
				kp_hw_apply_calibration(hw, &cal, path.buf);
		} else {
			rc = kp_error_set(err, KP_EPARSE, "%s; delete it or rerun 'kernelpro hw calibrate'",
					  kp_error_msg(&cerr));
		}
	}
	kp_buf_release(&path);
	return rc;
}

int kp_hw_for_profile(struct kp_hw *hw, const char *key, const char *profiled, int index, struct kp_error *err)
{
	const struct kp_hw_spec *s = profiled && *profiled ? kp_hw_spec_find(profiled) : NULL;
	struct kp_gpu_list gl;
	int rc;

	if (key && *key)
		return kp_hw_load(hw, key, 0, err);
	if (s) {
		if (kp_device_query(&gl, NULL) == 0 && index >= 0 && index < gl.count &&
		    kp_hw_spec_find(gl.gpus[index].name) == s)
			return kp_hw_load(hw, NULL, index, err);
		return kp_hw_load(hw, s->key, 0, err);
	}
	rc = kp_hw_load(hw, NULL, index, err);
	if (rc == KP_ENODEV && profiled && *profiled)
		kp_error_prefix(err, "the profile was taken on '%s', which the GPU table does not know", profiled);
	return rc;
}

void kp_hw_describe(const struct kp_hw *hw, struct kp_buf *out)
{
	kp_buf_addf(out, "%s (%s): %d SMs, DRAM %.3g TB/s, FP32 %.3g TFLOP/s", hw->spec.name, hw->source,
		    hw->spec.sm_count, hw->dram_bw / 1e12, hw->fp32 / 1e12);
	if (hw->bf16_tc > 0)
		kp_buf_addf(out, ", BF16 tensor %.3g TFLOP/s", hw->bf16_tc / 1e12);
	if (hw->tf32_tc > 0)
		kp_buf_addf(out, ", TF32 tensor %.3g TFLOP/s", hw->tf32_tc / 1e12);
	kp_buf_addf(out, ", L2 %.0f MB, %.0f KB shared memory per SM", hw->spec.l2_bytes / 1e6, hw->spec.smem_per_sm / 1e3);
}
