#!/usr/bin/python3
"""Generate SCALE-Sim v2 compute-model reference cycle counts for npusim tests.

Purpose
-------
npusim's compute tests compare the MAC-array cycle count of a GEMM or a
convolution with what SCALE-Sim v2 (https://github.com/scalesim-project/scale-sim-v2)
reports for the same layer.  This script produces that reference table by
running SCALE-Sim's own Python code -- nothing in it re-implements SCALE-Sim's
timing model -- for a fixed grid of shapes (GEMMs, attention, BERT, ResNet-50
and MobileNet-v1 layers) x 3 array sizes (16x16, 32x32, 128x128) x 3
dataflows (os, ws, is).

For every (shape, array, dataflow) it does what SCALE-Sim's single_layer_sim
does up to the memory system:

  1. writes a one-layer topology CSV and loads it with
     scalesim.topology_utils.topologies.load_arrays() -- mnk_inputs=True for
     GEMMs, so SCALE-Sim itself converts M x N x K into its GEMM layer
     (ifmap M x K with 1 channel, a 1 x K filter, N filters, stride 1);
  2. writes a config file (array rows/cols, dataflow, CALC bandwidth mode)
     and loads it with scalesim.scale_config.scale_config.read_conf_file();
  3. builds the operand matrices with scalesim.compute.operand_matrix;
  4. instantiates systolic_compute_{os,ws,is}, calls set_params() and
     create_demand_matrices(), and reads Sr, Sc, T, row_fold x col_fold and
     the number of rows of the ifmap demand matrix.

SCALE-Sim's reported "Total Cycles" (COMPUTE_REPORT.csv) is
double_buffered_scratchpad.total_cycles = the service cycle of the LAST demand
row, i.e. (demand rows - 1) + stall cycles (memory/double_buffered_scratchpad_mem.py,
service_memory_requests: cycle_arr = i + stall_cycles ... total_cycles =
int(ofmap_serviced_cycles[-1][0])).  With no stalls that is demand_rows - 1,
and that is what the `cycles` column holds (use --cycles demand-rows to write
the raw row count instead).  For small cases (--full-check-rows) the script
also runs SCALE-Sim's complete single_layer_sim (memory system included,
large SRAMs, CALC mode) and checks that it reports exactly that figure with
zero stall cycles.

Every figure is checked against the closed form derived from the SCALE-Sim
source (R x C array):
  os: Sr=M, Sc=N, T=K;  ws: Sr=K, Sc=N, T=M;  is: Sr=K, Sc=M, T=N
  folds = ceil(Sr/R) * ceil(Sc/C)
  demand rows = folds * (T + R + C - 2)    (os)
  demand rows = folds * (T + 2R + C - 2)   (ws, is)
Mismatches are printed to stderr and make the exit status 1.

SCALE-Sim builds its demand matrices by repeated np.concatenate, which is
quadratic in the number of folds; the shape grid is sized so the whole table
(57 shapes, 513 rows) takes about 8 minutes on one core with under 1 GiB peak
RSS.  Shapes that would
be too slow or too big are shrunk or left out, and the CSV header says which.

Usage
-----
  SCALE-Sim needs numpy and tqdm (Debian: apt-get install python3-numpy python3-tqdm).

  git clone https://github.com/scalesim-project/scale-sim-v2 SCALE_SIM_DIR
  scripts/scalesim_reference.py --scalesim SCALE_SIM_DIR \\
      --out tests/models/compute/data/scalesim_compute.csv

  --filter SUBSTR   only run cases whose name contains SUBSTR (for quick tests)
  --commit HASH     SCALE-Sim commit to record when SCALE_SIM_DIR is not a git checkout
"""

import argparse
import ctypes
import gc
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO_URL = "https://github.com/scalesim-project/scale-sim-v2"
OUT_COLUMNS = ("case,op,m,n,k,images,h,w,c,filters,r,s,stride,rows,cols,"
               "dataflow,sr,sc,t,folds,cycles")
ARRAYS = ((16, 16), (32, 32), (128, 128))
DATAFLOWS = (("os", "output_stationary"),
             ("ws", "weight_stationary"),
             ("is", "input_stationary"))
# Large SRAMs so that the optional full single_layer_sim check sees no stalls.
SRAM_KB = 4096


def gemm(name, m, n, k):
    return dict(case=name, op="matmul", m=m, n=n, k=k)


def conv(name, h, w, c, filters, r, s, stride):
    return dict(case=name, op="conv2d", images=1, h=h, w=w, c=c,
                filters=filters, r=r, s=s, stride=stride)


def build_cases():
    cases = []
    # Square GEMMs.  1024^3 is left out: on 16x16 os/is it has 4096 folds and
    # ~560 MB per demand matrix, ~30 min of np.concatenate.
    for d in (16, 64, 128, 256, 384, 512):
        cases.append(gemm("gemm_sq%d" % d, d, d, d))
    # Skinny / tall / deep-K GEMMs.
    cases += [
        gemm("gemm_tall_2048x64x64", 2048, 64, 64),
        gemm("gemm_wide_64x2048x256", 64, 2048, 256),
        gemm("gemm_deepk_64x64x2048", 64, 64, 2048),
        gemm("gemm_tall_4096x32x32", 4096, 32, 32),
    ]
    # Odd sizes, not multiples of any array size (1000^3 left out, see above).
    cases += [
        gemm("gemm_odd_1x1x1", 1, 1, 1),
        gemm("gemm_odd_7x3x5", 7, 3, 5),
        gemm("gemm_odd_17x17x17", 17, 17, 17),
        gemm("gemm_odd_33x65x129", 33, 65, 129),
        gemm("gemm_odd_100x37x300", 100, 37, 300),
        gemm("gemm_odd_257x129x65", 257, 129, 65),
        gemm("gemm_odd_31x33x1000", 31, 33, 1000),
        gemm("gemm_odd_300x200x500", 300, 200, 500),
    ]
    # GEMV (m = 1 and n = 1) and a dot product.  n = 1 shapes are kept to
    # M*K <= 256K: is on 16x16 has ceil(K/16)*ceil(M/16) folds.
    cases += [
        gemm("gemv_1x1024x1024", 1, 1024, 1024),
        gemm("gemv_1x4096x1024", 1, 4096, 1024),
        gemm("gemv_1x1024x4096", 1, 1024, 4096),
        gemm("gemv_512x1x512", 512, 1, 512),
        gemm("gemv_2048x1x128", 2048, 1, 128),
        gemm("dot_1x1x1024", 1, 1, 1024),
    ]
    # Attention, one head, head dim 64: Q.K^T (seq x seq x 64) and
    # scores.V (seq x 64 x seq).
    for seq in (128, 256, 384, 512):
        cases.append(gemm("attn_qk_s%d" % seq, seq, seq, 64))
    for seq in (128, 256, 512):
        cases.append(gemm("attn_sv_s%d" % seq, seq, 64, seq))
    # BERT-base, seq 128: Q/K/V/output projection and FFN up-projection.
    # FFN down-projection (K = 3072) at seq 64: at seq 128 is on 16x16 alone
    # takes ~70 s.
    cases += [
        gemm("bert_proj_128x768x768", 128, 768, 768),
        gemm("bert_ffn1_128x3072x768", 128, 3072, 768),
        gemm("bert_ffn2_64x768x3072", 64, 768, 3072),
    ]
    # ResNet-50 (SCALE-Sim's topologies/conv_nets/Resnet50.csv shapes: no
    # padding, ifmap at the stage's spatial size).
    # SCALE-Sim sizes the output as ceil((H - R + stride) / stride), which is
    # one more than the unpadded floor((H - R) / stride) + 1 when (H - R) is
    # not a multiple of the stride (the extra window is partly out of bounds).
    # Stride-2 inputs are therefore chosen with (H - R) even, so SCALE-Sim and
    # a pad-0 convolution agree on the output size.
    # conv1 7x7/2 on 224x224x3 (is on 16x16: ~7600 folds, ~5 min) is run on a
    # 117x117x3 input (56x56 outputs).  The stage-2 3x3 on 56x56x64 (2916
    # output pixels, K = 576; is on 16x16 ~4 min) is run on a 30x30x64 input
    # (28x28 outputs).  The stage-3 stride-2 1x1 downsample uses a 55x55 input
    # (28x28 outputs; Resnet50.csv's 56x56 gives 29x29 in SCALE-Sim).
    cases += [
        conv("r50_conv1_7x7s2_117", 117, 117, 3, 64, 7, 7, 2),
        conv("r50_s2_1x1_56_64to64", 56, 56, 64, 64, 1, 1, 1),
        conv("r50_s2_3x3_30_64to64", 30, 30, 64, 64, 3, 3, 1),
        conv("r50_s3_1x1s2_55_256to128", 55, 55, 256, 128, 1, 1, 2),
        conv("r50_s3_1x1_28_256to128", 28, 28, 256, 128, 1, 1, 1),
        conv("r50_s3_3x3_28_128to128", 28, 28, 128, 128, 3, 3, 1),
        conv("r50_s3_1x1_28_128to512", 28, 28, 128, 512, 1, 1, 1),
        conv("r50_s4_1x1_14_512to256", 14, 14, 512, 256, 1, 1, 1),
        conv("r50_s4_3x3_14_256to256", 14, 14, 256, 256, 3, 3, 1),
        conv("r50_s4_1x1_14_256to1024", 14, 14, 256, 1024, 1, 1, 1),
        conv("r50_s5_1x1_7_1024to512", 7, 7, 1024, 512, 1, 1, 1),
        conv("r50_s5_3x3_7_512to512", 7, 7, 512, 512, 3, 3, 1),
        conv("r50_s5_1x1_7_512to2048", 7, 7, 512, 2048, 1, 1, 1),
    ]
    # MobileNet-v1: first 3x3/2 conv and pointwise 1x1 layers (SCALE-Sim's
    # topologies/conv_nets/mobilenet.csv shapes).  conv1 uses a 225x225x3
    # input (= 224 with TF "SAME" padding): 112x112 outputs both in SCALE-Sim
    # and unpadded (224 gives 112 in SCALE-Sim but 111 unpadded).
    cases += [
        conv("mbv1_conv1_3x3s2_225", 225, 225, 3, 32, 3, 3, 2),
        conv("mbv1_pw1_112_32to64", 112, 112, 32, 64, 1, 1, 1),
        conv("mbv1_pw2_56_64to128", 56, 56, 64, 128, 1, 1, 1),
        conv("mbv1_pw3_56_128to128", 56, 56, 128, 128, 1, 1, 1),
        conv("mbv1_pw4_28_128to256", 28, 28, 128, 256, 1, 1, 1),
        conv("mbv1_pw5_28_256to256", 28, 28, 256, 256, 1, 1, 1),
        conv("mbv1_pw6_14_256to512", 14, 14, 256, 512, 1, 1, 1),
        conv("mbv1_pw7_14_512to512", 14, 14, 512, 512, 1, 1, 1),
        conv("mbv1_pw12_7_512to1024", 7, 7, 512, 1024, 1, 1, 1),
        conv("mbv1_pw13_7_1024to1024", 7, 7, 1024, 1024, 1, 1, 1),
    ]
    for c in cases:
        if c["op"] == "matmul":
            for key in ("images", "h", "w", "c", "filters", "r", "s", "stride"):
                c[key] = 0
        else:
            ho = (c["h"] - c["r"]) // c["stride"] + 1
            wo = (c["w"] - c["s"]) // c["stride"] + 1
            c["m"] = ho * wo
            c["n"] = c["filters"]
            c["k"] = c["r"] * c["s"] * c["c"]
    names = [c["case"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases


def closed_form(m, n, k, rows, cols, df):
    """(Sr, Sc, T, folds, demand_rows) derived from the SCALE-Sim source."""
    if df == "os":
        sr, sc, t = m, n, k
        per_fold = t + rows + cols - 2
    elif df == "ws":
        sr, sc, t = k, n, m
        per_fold = t + 2 * rows + cols - 2
    else:
        sr, sc, t = k, m, n
        per_fold = t + 2 * rows + cols - 2
    folds = math.ceil(sr / rows) * math.ceil(sc / cols)
    return sr, sc, t, folds, folds * per_fold


def speed_up_malloc():
    """Keep big numpy buffers on the glibc heap instead of fresh mmaps.

    SCALE-Sim grows its demand matrices by repeated np.concatenate; with
    glibc's defaults every step mmaps and page-faults a new buffer.  This
    only changes allocation speed (~30%), never any value.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
        libc.mallopt(m_mmap_threshold, 2 ** 31 - 1)
        libc.mallopt(m_trim_threshold, 2 ** 31 - 1)
        libc.mallopt(m_top_pad, 64 << 20)
    except (OSError, AttributeError):
        pass


def scalesim_commit(scalesim_dir, override):
    if override:
        return override
    try:
        head = subprocess.run(["git", "-C", scalesim_dir, "rev-parse", "HEAD"],
                              check=True, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", scalesim_dir, "status", "--porcelain",
                                "--", "scalesim"],
                               check=True, capture_output=True, text=True).stdout.strip()
        return head + (" (scalesim/ has local changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (pass --commit)"


def write_config(path, rows, cols, df):
    with open(path, "w") as f:
        f.write("[general]\nrun_name = npusim_ref\n\n"
                "[architecture_presets]\n"
                "ArrayHeight: %d\nArrayWidth: %d\n"
                "IfmapSramSzkB: %d\nFilterSramSzkB: %d\nOfmapSramSzkB: %d\n"
                "IfmapOffset: 0\nFilterOffset: 10000000\nOfmapOffset: 20000000\n"
                "Bandwidth : 10\nDataflow : %s\nMemoryBanks: 1\n\n"
                "[run_presets]\nInterfaceBandwidth: CALC\n"
                % (rows, cols, SRAM_KB, SRAM_KB, SRAM_KB, df))


def write_topology(path, case):
    with open(path, "w") as f:
        if case["op"] == "matmul":
            # SCALE-Sim's GEMM topology format (scale.py -i gemm).
            f.write("Layer, M, N, K,\n%s, %d, %d, %d,\n"
                    % (case["case"], case["m"], case["n"], case["k"]))
        else:
            f.write("Layer name, IFMAP Height, IFMAP Width, Filter Height, "
                    "Filter Width, Channels, Num Filter, Strides,\n"
                    "%s, %d, %d, %d, %d, %d, %d, %d,\n"
                    % (case["case"], case["h"], case["w"], case["r"], case["s"],
                       case["c"], case["filters"], case["stride"]))


def main():
    ap = argparse.ArgumentParser(
        description="Generate SCALE-Sim v2 compute-cycle reference CSV for npusim.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--scalesim", required=True, metavar="DIR",
                    help="SCALE-Sim v2 source checkout (the directory holding scalesim/)")
    ap.add_argument("--out", required=True, metavar="FILE", help="output CSV")
    ap.add_argument("--commit", default="",
                    help="SCALE-Sim commit to record (default: git rev-parse HEAD in DIR)")
    ap.add_argument("--filter", default="", metavar="SUBSTR",
                    help="only cases whose name contains SUBSTR")
    ap.add_argument("--cycles", choices=("total-cycles", "demand-rows"),
                    default="total-cycles",
                    help="cycles column: SCALE-Sim's reported Total Cycles "
                         "(= demand rows - 1 without stalls, default) or the demand row count")
    ap.add_argument("--full-check-rows", type=int, default=2000, metavar="N",
                    help="also run SCALE-Sim's full single_layer_sim (memory system) "
                         "when a case has at most N demand rows (0: never)")
    ap.add_argument("--max-matrix-mb", type=float, default=400.0,
                    help="skip a case whose ifmap demand matrix would exceed this size")
    args = ap.parse_args()

    scalesim_dir = os.path.abspath(args.scalesim)
    if not os.path.isfile(os.path.join(scalesim_dir, "scalesim", "compute",
                                       "systolic_compute_os.py")):
        sys.exit("error: %s does not look like a SCALE-Sim v2 checkout" % scalesim_dir)
    sys.path.insert(0, scalesim_dir)
    try:
        import numpy  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as e:
        print("error: SCALE-Sim needs numpy and tqdm, which %s lacks (%s); run this script "
              "with /usr/bin/python3 after `apt-get install python3-numpy python3-tqdm`"
              % (sys.executable, e), file=sys.stderr)
        sys.exit(2)
    from scalesim.scale_config import scale_config
    from scalesim.topology_utils import topologies
    from scalesim.compute.operand_matrix import operand_matrix
    from scalesim.compute.systolic_compute_os import systolic_compute_os
    from scalesim.compute.systolic_compute_ws import systolic_compute_ws
    from scalesim.compute.systolic_compute_is import systolic_compute_is
    from scalesim.single_layer_sim import single_layer_sim
    compute_cls = {"os": systolic_compute_os, "ws": systolic_compute_ws,
                   "is": systolic_compute_is}

    speed_up_malloc()
    commit = scalesim_commit(scalesim_dir, args.commit)
    cases = [c for c in build_cases() if args.filter in c["case"]]
    tmp = tempfile.mkdtemp(prefix="scalesim_ref_")
    out_rows, mismatches, skipped, full_checked = [], [], [], 0
    t_start = time.time()
    print("SCALE-Sim %s, %d shapes x %d arrays x %d dataflows"
          % (commit, len(cases), len(ARRAYS), len(DATAFLOWS)), file=sys.stderr)

    for idx, case in enumerate(cases):
        t_case = time.time()
        topo_path = os.path.join(tmp, "topo.csv")
        write_topology(topo_path, case)
        is_gemm = case["op"] == "matmul"
        m, n, k = case["m"], case["n"], case["k"]
        for rows, cols in ARRAYS:
            for df, df_name in DATAFLOWS:
                tag = "%s %dx%d %s" % (case["case"], rows, cols, df)
                width = max(rows, cols)
                exp = closed_form(m, n, k, rows, cols, df)
                if exp[4] * width * 8 / 1e6 > args.max_matrix_mb:
                    skipped.append(tag)
                    print("  SKIP %s: demand matrix %.0f MB" %
                          (tag, exp[4] * width * 8 / 1e6), file=sys.stderr)
                    continue
                cfg_path = os.path.join(tmp, "cfg_%d_%d_%s.cfg" % (rows, cols, df))
                write_config(cfg_path, rows, cols, df)
                cfg = scale_config()
                cfg.read_conf_file(cfg_path)
                topo = topologies()
                topo.load_arrays(topofile=topo_path, mnk_inputs=is_gemm)

                # Operand matrices exactly as single_layer_sim.set_params()/run() build them.
                opmat = operand_matrix()
                opmat.set_params(config_obj=cfg, topoutil_obj=topo, layer_id=0)
                _, ifmap_op = opmat.get_ifmap_matrix()
                _, filter_op = opmat.get_filter_matrix()
                _, ofmap_op = opmat.get_ofmap_matrix()
                ss_m = opmat.ofmap_px_per_filt
                ss_k = opmat.conv_window_size
                ss_n = opmat.num_filters
                if (ss_m, ss_n, ss_k) != (m, n, k):
                    mismatches.append("%s: SCALE-Sim lowered GEMM %dx%dx%d != %dx%dx%d"
                                      % (tag, ss_m, ss_n, ss_k, m, n, k))

                comp = compute_cls[df]()
                comp.set_params(config_obj=cfg, ifmap_op_mat=ifmap_op,
                                filter_op_mat=filter_op, ofmap_op_mat=ofmap_op)
                comp.create_demand_matrices()
                demand_rows = comp.ifmap_demand_matrix.shape[0]
                assert comp.filter_demand_matrix.shape[0] == demand_rows
                assert comp.ofmap_demand_matrix.shape[0] == demand_rows
                folds = comp.row_fold * comp.col_fold
                got = (comp.Sr, comp.Sc, comp.T, folds, demand_rows)
                del comp, opmat, ifmap_op, filter_op, ofmap_op
                gc.collect()
                if got != exp:
                    mismatches.append("%s: SCALE-Sim Sr,Sc,T,folds,rows=%s closed form=%s"
                                      % (tag, got, exp))
                    print("  MISMATCH " + mismatches[-1], file=sys.stderr)
                # SCALE-Sim's Total Cycles without stalls (see module docstring).
                total_cycles = demand_rows - 1

                if 0 < demand_rows <= args.full_check_rows:
                    sim = single_layer_sim()
                    sim.set_params(layer_id=0, config_obj=cfg, topology_obj=topo,
                                   verbose=False)
                    sim.run()
                    rep_total, rep_stall = sim.get_compute_report_items()[:2]
                    full_checked += 1
                    if (rep_total, rep_stall) != (total_cycles, 0):
                        mismatches.append("%s: single_layer_sim Total Cycles=%d stalls=%d, "
                                          "expected %d, 0" % (tag, rep_total, rep_stall,
                                                              total_cycles))
                        print("  MISMATCH " + mismatches[-1], file=sys.stderr)
                    del sim
                    gc.collect()

                cycles = total_cycles if args.cycles == "total-cycles" else demand_rows
                row = dict(case)
                row.update(rows=rows, cols=cols, dataflow=df_name, sr=got[0], sc=got[1],
                           t=got[2], folds=folds, cycles=cycles)
                out_rows.append(row)
        print("[%2d/%d] %-28s M=%-6d N=%-5d K=%-5d %6.1f s (total %6.1f s)"
              % (idx + 1, len(cases), case["case"], m, n, k, time.time() - t_case,
                 time.time() - t_start), file=sys.stderr)

    cycles_desc = (
        "SCALE-Sim's reported 'Total Cycles' with zero stall cycles = demand rows - 1"
        if args.cycles == "total-cycles" else
        "number of rows of SCALE-Sim's ifmap demand matrix (= reported Total Cycles + 1)")
    per_fold = "(T + R + C - 2) [os] / (T + 2R + C - 2) [ws, is]"
    cyc_form = ("folds * %s - 1" if args.cycles == "total-cycles" else "folds * %s") % per_fold
    header = [
        "SCALE-Sim v2 compute-model cycle counts (no memory stalls) for GEMM and conv2d layers,",
        "from SCALE-Sim's own Python code: topologies.load_arrays -> operand_matrix ->",
        "systolic_compute_{os,ws,is}.set_params + create_demand_matrices.",
        "SCALE-Sim: %s commit %s" % (REPO_URL, commit),
        "Generated by: scripts/scalesim_reference.py --scalesim SCALE_SIM_DIR "
        "--out tests/models/compute/data/scalesim_compute.csv"
        + ("" if args.cycles == "total-cycles" else " --cycles demand-rows")
        + (" --filter %s" % args.filter if args.filter else ""),
        "cycles = %s." % cycles_desc,
        "  SCALE-Sim counts Total Cycles in memory/double_buffered_scratchpad_mem.py",
        "  service_memory_requests(): demand row i is issued at cycle i + stall_cycles and",
        "  total_cycles = int(ofmap_serviced_cycles[-1][0]), the cycle of the LAST row, so it is",
        "  demand_rows - 1 + stalls (single_layer_sim.calc_report_data -> COMPUTE_REPORT.csv).",
        "  %d configurations with <= %d demand rows were also run through the full"
        % (full_checked, args.full_check_rows),
        "  single_layer_sim (CALC bandwidth, %d kB SRAMs): all reported that figure with 0 stalls."
        % SRAM_KB if not any("single_layer_sim" in x for x in mismatches) else
        "  single_layer_sim (see mismatches printed by the script).",
        "Closed form, checked for every row (R x C array, GEMM M x N x K):",
        "  os: Sr=M Sc=N T=K;  ws: Sr=K Sc=N T=M;  is: Sr=K Sc=M T=N",
        "  folds = ceil(Sr/R) * ceil(Sc/C)",
        "  cycles = %s" % cyc_form,
        "  Mismatches found: %d." % len(mismatches),
        "GEMMs use SCALE-Sim's GEMM convention (topology_utils.load_arrays_gemm): ifmap M x K with",
        "1 channel, a 1 x K filter, N filters, stride 1 (operand matrices M x K and K x N).",
        "conv2d: SCALE-Sim has no padding (npusim: pad 0); m,n,k = lowered GEMM (m = Ho*Wo,",
        "n = filters, k = R*S*C), batch 1.  SCALE-Sim sizes the output as",
        "ceil((H - R + stride) / stride) (topology_utils.topo_calc_hyperparams), one more than",
        "the unpadded floor((H - R) / stride) + 1 when (H - R) % stride != 0; every stride-2",
        "shape here has (H - R) even, so both agree (checked for every row).",
        "Shape grid limits (SCALE-Sim grows demand matrices by repeated np.concatenate,",
        "quadratic in the fold count; each demand matrix is dense float64):",
        "  left out: 1024x1024x1024 and 1000x1000x1000 (4096/3969 folds on 16x16, ~0.5 GB per",
        "  demand matrix, >30 min); BERT FFN down 128x768x3072 is run at seq 64; ResNet-50",
        "  conv1 7x7/2 is run on a 117x117x3 input (56x56 out) instead of 224x224x3 and the",
        "  stage-2 3x3 on a 30x30x64 input instead of 56x56x64; MobileNet-v1 conv1 3x3/2 uses a",
        "  225x225x3 input (112x112 out); the ResNet-50 stride-2 1x1 downsample uses 55x55.",
    ]
    if skipped:
        header.append("Skipped (demand matrix over %.0f MB): %s"
                      % (args.max_matrix_mb, "; ".join(skipped)))
    cols = OUT_COLUMNS.split(",")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        for line in header:
            f.write("# " + line + "\n")
        f.write(OUT_COLUMNS + "\n")
        for row in out_rows:
            f.write(",".join(str(row[c]) for c in cols) + "\n")
    shutil.rmtree(tmp, ignore_errors=True)

    print("wrote %d rows to %s in %.1f s; %d full single_layer_sim checks; "
          "%d mismatches; %d skipped"
          % (len(out_rows), args.out, time.time() - t_start, full_checked,
             len(mismatches), len(skipped)), file=sys.stderr)
    for mm in mismatches:
        print("MISMATCH " + mm, file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
