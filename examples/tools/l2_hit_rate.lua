-- l2_hit_rate: a memory-bound kernel whose reads mostly miss L2, so DRAM serves data the kernel
-- touches more than once. A complete user tool: copy it, rename it, change the logic.
-- Load it with: kernelpro diagnose --tools-dir examples/tools ...   (or KERNELPRO_TOOLS_PATH)
return {
  name = "l2_hit_rate",
  description = "Memory-bound kernels whose global reads mostly miss L2",
  details = "Fires when DRAM is at least min_dram_pct busy, the L2 "
         .. "hit rate is below min_hit_pct, and L2 requested more bytes than DRAM delivered "
         .. "(so some data is touched twice): the second touch went to DRAM again.",
  source = "ncu",
  classes = {"memory", "latency"},   -- which Stage-1 classes run it proactively (default: all)

  -- Every ncu metric the tool reads, so the profiler collects exactly these.
  metrics = {
    "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
  },
  optional_metrics = {
    "lts__t_sectors_srcunit_tex_op_read.sum",     -- L2 sectors requested by L1
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
  },

  -- Named, documented, overridable: --threshold l2_hit_rate.min_hit_pct=40
  thresholds = {
    min_hit_pct = {default = 50, unit = "%", doc = "L2 hit rate below this fires"},
    min_dram_pct = {default = 40, unit = "%", doc = "only when DRAM is at least this busy"},
  },

  -- m: the kernel (m.metric, m.get, m.has, m.launch, m.sass, m.ptxas, m.stage1, m.hw); t: thresholds.
  trigger = function(m, t)
    return m.metric("lts__t_sector_hit_rate.pct") < t.min_hit_pct
       and m.metric("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed") >= t.min_dram_pct
  end,

  analyze = function(m, t)
    local hit = m.metric("lts__t_sector_hit_rate.pct")
    local dram_bytes = m.metric("dram__bytes_read.sum")
    local l2_sectors = m.get("lts__t_sectors_srcunit_tex_op_read.sum")   -- nil when not collected
    local reuse = l2_sectors and (l2_sectors * 32 / dram_bytes) or nil
    if reuse and reuse < 1.2 then
      return nil   -- every byte is read once: a low hit rate is expected for streaming
    end
    local evidence = {
      {metric = "lts__t_sector_hit_rate.pct", value = hit, threshold = t.min_hit_pct, unit = "%"},
      {metric = "dram__bytes_read.sum", value = dram_bytes, unit = "B"},
    }
    if reuse then
      evidence[#evidence + 1] = {metric = "L2 bytes requested per DRAM byte read", value = reuse, unit = "x"}
    end
    return {
      title = string.format("Reads miss L2 (%.0f%% hit rate) although data is touched more than once", hit),
      cause = "The working set between two uses of the same data is larger than L2, so the second "
           .. "use fetches it from DRAM again.",
      evidence = evidence,
      recommendations = {
        "Process the data in chunks that fit in L2 (about 50 MB on H100/H200) and finish all uses "
          .. "of a chunk before moving on",
        "Swizzle the block order (blockIdx) so blocks that share inputs run at the same time",
      },
      -- A fraction of the kernel's time; leave it out when you cannot estimate it.
      gain = reuse and math.min(0.9, (1 - 1 / reuse) * 0.5) or nil,
      gain_basis = "half of the re-fetched DRAM traffic saved",
      explained_by = {"cache_reuse"},   -- fold into cache_reuse's finding when it fires too
    }
  end,
}
