"""MPI_Reduce with an operator written in Python, through mpi4py: what a drop-in user of libredux gets.

The op is a non-commutative 2x2 matrix product modulo 2^61, vectorised with numpy, created with MPI.Op.Create
on a derived datatype (4 contiguous uint64, one matrix): each call costs tens of microseconds whatever its length
(the interpreter's dispatch) plus a little per element. Comm.Reduce goes to MPI_Reduce, which libredux
interposes when it is preloaded; the MPI library's own reduce is called in the same job through PMPI_Reduce
(ctypes, with mpi4py's handles), the calls of the two taking turns. For every size a new key: libredux plans it,
and under REDUX_ALGORITHM=auto its trials and confirmation are among the timed calls.

Every call's result on the root is checked against the product computed here in rank order without MPI.
Latency: from a barrier to the root's completion; the median (and quartiles) over --calls calls per side.

    mpirun -np 4 env LD_PRELOAD=build/libredux/libredux.so python3 mpi_bench/python_op.py
    (mpi_bench/run-python-op.sh does that, with Open MPI's options for this machine)
"""

import argparse
import ctypes
import sys
import time

import numpy as np
from mpi4py import MPI

MASK = np.uint64((1 << 61) - 1)


def matmul(a, b):
    """a o b for arrays of 2x2 matrices [m0 m1; m2 m3], shape (n, 4), modulo 2^61 (products wrap mod 2^64)."""
    with np.errstate(over="ignore"):
        out = np.empty_like(b)
        out[:, 0] = (a[:, 0] * b[:, 0] + a[:, 1] * b[:, 2]) & MASK
        out[:, 1] = (a[:, 0] * b[:, 1] + a[:, 1] * b[:, 3]) & MASK
        out[:, 2] = (a[:, 2] * b[:, 0] + a[:, 3] * b[:, 2]) & MASK
        out[:, 3] = (a[:, 2] * b[:, 1] + a[:, 3] * b[:, 3]) & MASK
    return out


def user_function(inbuf, inoutbuf, datatype):
    """MPI's contract: inout = in o inout, `in` holding the lower ranks' partial result."""
    a = np.frombuffer(inbuf, dtype=np.uint64).reshape(-1, 4)
    b = np.frombuffer(inoutbuf, dtype=np.uint64).reshape(-1, 4)
    b[...] = matmul(a, b)


def rank_input(rank, count):
    """Rank `rank`'s matrices: distinct, not symmetric, so a product out of order differs."""
    i = np.arange(count, dtype=np.uint64)
    r = np.uint64(rank)
    with np.errstate(over="ignore"):
        m = np.stack([i * np.uint64(7) + r + np.uint64(1), i + r * np.uint64(3) + np.uint64(2),
                      i * np.uint64(5) + r + np.uint64(3), i * np.uint64(0) + r * np.uint64(11) + np.uint64(1)], axis=1)
    return m & MASK


def pmpi_reduce():
    """The MPI library's own MPI_Reduce (PMPI_Reduce) with mpi4py's handles, or None where it cannot be found."""
    lib = ctypes.CDLL(None)  # the process: libmpi is loaded by mpi4py
    try:
        fn = lib.PMPI_Reduce
    except AttributeError:
        return None
    handle = ctypes.c_void_p if MPI.get_vendor()[0] == "Open MPI" else ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, handle, handle, ctypes.c_int, handle]
    fn.restype = ctypes.c_int

    def call(send, recv, count, datatype, op, root, comm):
        rc = fn(send.ctypes.data, recv.ctypes.data, count, MPI._handleof(datatype), MPI._handleof(op), root,
                MPI._handleof(comm))
        if rc != MPI.SUCCESS:
            raise RuntimeError(f"PMPI_Reduce returned {rc}")
    return call


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000", help="matrices per rank, comma-separated")
    parser.add_argument("--calls", type=int, default=100, help="timed calls per side and size (default 100)")
    parser.add_argument("--csv", help="append rows size,side,median_us,q1_us,q3_us to this file (rank 0)")
    args = parser.parse_args()

    comm = MPI.COMM_WORLD.Dup()
    rank, size = comm.Get_rank(), comm.Get_size()
    matrix = MPI.UINT64_T.Create_contiguous(4).Commit()
    op = MPI.Op.Create(user_function, commute=False)
    native = pmpi_reduce()
    if native is None:
        if rank == 0:
            print("python_op: PMPI_Reduce not found in the process", file=sys.stderr)
        return 1
    sides = [("native", native),
             ("libredux", lambda s, r, n, t, o, root, c: c.Reduce([s, n, t], [r, n, t], op=o, root=root))]
    if rank == 0:
        print(f"# python_op: MPI_Reduce of 2x2 matrices mod 2^61 (a Python op, non-commutative, derived datatype), "
              f"{size} ranks, {MPI.get_vendor()[0]}; median over {args.calls} calls per side, the sides taking turns")
        print(f"# {'matrices':>10} {'native us':>12} {'libredux us':>12} {'native/libredux':>16}")
    failures = 0
    for count in [int(s) for s in args.sizes.split(",")]:
        send = rank_input(rank, count)
        recv = np.zeros_like(send)
        expected = None
        if rank == 0:
            expected = rank_input(0, count)
            for r in range(1, size):
                expected = matmul(expected, rank_input(r, count))
        times = {name: [] for name, _ in sides}
        for call in range(args.calls):
            for name, reduce in sides:
                recv[...] = 0
                comm.Barrier()
                start = time.perf_counter()
                reduce(send, recv, count, matrix, op, 0, comm)
                elapsed = time.perf_counter() - start
                if rank == 0:
                    times[name].append(elapsed)
                    if not np.array_equal(recv, expected):
                        failures += 1
                        print(f"python_op: {name} {count} matrices, call {call}: wrong result", file=sys.stderr)
        if rank == 0:
            q = {name: np.percentile(np.array(t) * 1e6, [25, 50, 75]) for name, t in times.items()}
            print(f"  {count:>10} {q['native'][1]:>12.1f} {q['libredux'][1]:>12.1f} "
                  f"{q['native'][1] / q['libredux'][1]:>15.2f}x", flush=True)
            if args.csv:
                with open(args.csv, "a") as out:
                    for name in q:
                        out.write(f"{count},{name},{q[name][1]:.3f},{q[name][0]:.3f},{q[name][2]:.3f}\n")
    failures = comm.allreduce(failures)
    op.Free()
    matrix.Free()
    comm.Free()
    if rank == 0 and failures:
        print(f"python_op: {failures} wrong results", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
