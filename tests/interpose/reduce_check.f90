! The Fortran counterpart of reduce_check.c: a program that knows nothing of libredux calls MPI_REDUCE through
! `use mpi` and checks
!   1. that MPI_REDUCE, as the dynamic linker resolves it (gfortran calls mpi_reduce_), is libredux's, and for
!      2 ranks or more that libredux planned the first reduction, called three times (REDUX_VERBOSE=1: "libredux:
!      new plan"; under auto a key's first two calls go to the MPI library's own reduce unplanned);
!   2. every result against a closed form: an integer sum with MPI_IN_PLACE at root 0, a double precision
!      maximum to the last rank, and an integer sum with MPI_IN_PLACE at the last rank. Fortran's MPI_IN_PLACE
!      is the address of a common block variable; if libredux did not map it to C's MPI_IN_PLACE, the roots would
!      fold that variable in as data and the sums would be wrong.
! Exit status 0 when every rank passed every check; rank 0 prints the verdict.
program reduce_check_f
    use mpi
    use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
    implicit none

    include 'probe.inc'

    integer, parameter :: n = 20000
    integer :: rank, size, ierr, failures, i, k, root
    integer :: ibuf(n), ignored(n)
    double precision :: dsend(n), drecv(n)

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
    failures = 0

    if (probe_symbol_in_libredux("mpi_reduce_" // c_null_char) /= 1) failures = failures + 1

    ! Integer sum of (r + 1) * i over ranks r, in place at root 0, three times: under auto a key's first two
    ! calls go to the MPI library's own reduce unplanned, the third is planned.
    if (rank == 0 .and. size >= 2) call probe_capture_stderr()
    do k = 1, 3
        do i = 1, n
            ibuf(i) = (rank + 1) * i
        end do
        if (rank == 0) then
            call MPI_REDUCE(MPI_IN_PLACE, ibuf, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
        else
            call MPI_REDUCE(ibuf, ignored, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
        end if
    end do
    if (rank == 0 .and. size >= 2) then
        if (probe_stderr_contains("libredux: new plan" // c_null_char) /= 1) then
            write (0, '(a)') '[rank 0] integer sum: libredux did not report planning it (is REDUX_VERBOSE=1 set?)'
            failures = failures + 1
        end if
    end if
    call check_ierr('integer sum in place at root 0')
    if (rank == 0) call check_ints('integer sum in place at root 0', size * (size + 1) / 2)

    ! Double precision maximum of r + i / 2 over ranks r, to the last rank.
    root = size - 1
    do i = 1, n
        dsend(i) = rank + i * 0.5d0
    end do
    call MPI_REDUCE(dsend, drecv, n, MPI_DOUBLE_PRECISION, MPI_MAX, root, MPI_COMM_WORLD, ierr)
    call check_ierr('double precision maximum')
    if (rank == root) then
        do i = 1, n
            if (drecv(i) /= root + i * 0.5d0) then
                write (0, '(a, i0, a, i0, a, g0, a, g0)') '[rank ', rank, '] double precision maximum: element ', i, &
                    ' is ', drecv(i), ', expected ', root + i * 0.5d0
                failures = failures + 1
                exit
            end if
        end do
    end if

    ! Integer sum again, in place at the last rank.
    do i = 1, n
        ibuf(i) = (rank + 1) * i
    end do
    if (rank == root) then
        call MPI_REDUCE(MPI_IN_PLACE, ibuf, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    else
        call MPI_REDUCE(ibuf, ignored, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    end if
    call check_ierr('integer sum in place at the last rank')
    if (rank == root) call check_ints('integer sum in place at the last rank', size * (size + 1) / 2)

    call redux_check_verdict('reduce_check_f', failures)

contains

    subroutine check_ierr(check)
        character(*), intent(in) :: check
        if (ierr /= MPI_SUCCESS) then
            write (0, '(a, i0, 3a, i0)') '[rank ', rank, '] ', check, ': ierr = ', ierr
            failures = failures + 1
        end if
    end subroutine

    ! ibuf(i) must be ranks_sum * i.
    subroutine check_ints(check, ranks_sum)
        character(*), intent(in) :: check
        integer, intent(in) :: ranks_sum
        integer :: j
        do j = 1, n
            if (ibuf(j) /= ranks_sum * j) then
                write (0, '(a, i0, 3a, i0, a, i0, a, i0)') '[rank ', rank, '] ', check, ': element ', j, ' is ', &
                    ibuf(j), ', expected ', ranks_sum * j
                failures = failures + 1
                return
            end if
        end do
    end subroutine

end program reduce_check_f
