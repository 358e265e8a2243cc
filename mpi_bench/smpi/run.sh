#!/usr/bin/env bash
# Runs a program built with smpicc/smpicxx (build-smpi) on simulated ranks:
#   mpi_bench/smpi/run.sh PLATFORM RANKS [SMPIRUN SETTINGS...] -- PROGRAM [ARGS...]
# PLATFORM: the prefix of PLATFORM.xml and PLATFORM.hosts (mpi_bench/smpi/platform.py writes them).
#
# The settings make simulated time that of the cost model, exactly:
#   network/model:CM02, network/crosstraffic:0  a message costs its route's latency plus bytes over the narrowest
#                                               link's bandwidth, nothing else (SimGrid's default SMPI model
#                                               adds calibration factors; cross-traffic adds acknowledgement
#                                               flows that take 5 % of the reverse direction of every link)
#   smpi/simulate-computation:no                the program's own CPU time is not injected: only what an op
#                                               injects (mpi_bench's spin:NS and delay:NS, smpi_execute) costs
#                                               time, so c is what the run asks for, on any machine
#   smpi/cpu-threshold:-1                       every injected computation counts: by default SMPI drops those
#                                               under 1 us, so an op of c = 0.2 us cost nothing (8 B, c/d 0.1:
#                                               binomial on 16 ranks 8.14 us with it, 8.94 us = the model without)
#   smpi/test:0, smpi/wtime:0                   MPI_Test and MPI_Wtime cost nothing (libredux blocks instead of
#                                               polling under SMPI: libredux/src/mpi/yielding.hpp)
#   smpi/bcast, allreduce, barrier, allgather   the benchmark's and calibration's own collectives, fixed to
#                                               logarithmic algorithms: the default selector's are linear, and
#                                               the mpich selector's set up SMP-aware communicators with O(n^2)
#                                               messages, both far too slow to simulate at 1024 ranks and more
#   smpi/reduce:ompi                            what PMPI_Reduce (mpi_bench's "native") runs unless the caller
#                                               names another (a later --cfg=smpi/reduce:... wins)
# SMPI_PRIVATIZATION (default dlopen): every simulated rank gets its own copy of the program's globals.
set -euo pipefail
if (($# < 4)); then
    sed -n '2,4p' "$0" >&2
    exit 2
fi
platform="$1" ranks="$2"
shift 2
settings=()
while (($# > 0)) && [[ "$1" != "--" ]]; do
    settings+=("$1")
    shift
done
if (($# < 2)); then
    echo "run.sh: no program after --" >&2
    exit 2
fi
shift
exec smpirun -np "${ranks}" -platform "${platform}.xml" -hostfile "${platform}.hosts" \
    --cfg=smpi/privatization:"${SMPI_PRIVATIZATION:-dlopen}" \
    --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/host-speed:1Gf \
    --cfg=smpi/simulate-computation:no --cfg=smpi/cpu-threshold:-1 --cfg=smpi/test:0 --cfg=smpi/wtime:0 \
    --cfg=smpi/bcast:binomial_tree --cfg=smpi/allreduce:rdb --cfg=smpi/barrier:ompi_recursivedoubling \
    --cfg=smpi/allgather:rdb --cfg=smpi/reduce:ompi \
    --log=root.thres:warning --log=smpi_config.thres:error \
    "${settings[@]}" "$@"
