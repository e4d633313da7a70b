"""The read-limit columns of the tables of scripts/bench-vs-ggml.sh and scripts/bench-moe-vs-ggml.sh, from the
probe files that scripts/lib/peer-common.sh's peer_probe writes."""
import os

READ_LIMIT_NOTE = (
    "Read limit: the best run of `qmatmul bench --probes`' streaming read probes (2 threads, buffers > LLC), measured "
    "right after each decode pair, best over the rounds (that probe's median of the same round beside it: a best far above "
    "its median is a lucky run, not the sustained roof); % = decode GB/s / limit; bound = limit / ggml's decode GB/s, the "
    "largest decode speed-up possible on this machine (a target above it cannot be met here).")


def read_limit(res, case, rounds):
    """The best read probe of the case over the rounds (GB/s) and 'NAME, median Y' of that probe."""
    best, name = 0.0, "?"
    for r in range(1, rounds + 1):
        try:
            lines = open(os.path.join(res, f"probe-{case}-{r}.txt")).read().split("\n")
        except OSError:
            continue
        for line in lines:
            f = line.split()  # read NAME best X GB/s median Y
            if len(f) >= 7 and f[0] == "read" and f[2] == "best" and float(f[3]) > best:
                best, name = float(f[3]), f"{f[1]}, median {f[6]}"
    return best, name


def limit_cells(res, case, rounds, qmm_rate, ggml_rate, target):
    """The three read-limit cells of a row: the limit, each side's decode GB/s as % of it, the speed-up bound."""
    lim, pname = read_limit(res, case, rounds)
    if lim <= 0:
        return ["? (no probe)", "?", "?"]
    bound = lim / ggml_rate
    return [f"{lim:.1f} ({pname})", f"{100 * qmm_rate / lim:.0f}% / {100 * ggml_rate / lim:.0f}%",
            f"{bound:.2f}" + (f": {target} cannot be met here" if bound < target else "")]
