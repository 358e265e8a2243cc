! The Fortran counterpart of foreign_mpi.c: a program of the OTHER MPI than libredux's, with libredux
! preloaded, calls MPI_REDUCE (gfortran: mpi_reduce_, which libredux defines) and checks the results: an integer
! sum at root 0 and at the last rank (20000 elements, each three times) and a 3-element sum with MPI_IN_PLACE at
! the last rank; then MPI_IALLREDUCE completed by MPI_WAIT, and MPI_IREDUCE to the last rank beside an MPI_IRECV /
! MPI_ISEND pair completed by MPI_WAITALL. libredux must pass every call to the library's own Fortran symbol untouched
! (its MPI_*_f2c, MPI_IN_PLACE and MPI_STATUS_IGNORE are the other MPI's). Exit status 0 when every rank passed; rank
! 0 prints "foreign_mpi: ok".
program foreign_mpi_f
    use mpi
    implicit none
    integer, parameter :: n = 20000
    integer :: rank, size, ierr, failures, total, i, root, repeat, r
    integer :: send(n), recv(n), small(3), ignored(3), requests(3), statuses(MPI_STATUS_SIZE, 3), from_left

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
    failures = 0

    do r = 0, 1
        root = r * (size - 1)
        do repeat = 1, 3
            do i = 1, n
                send(i) = (rank + 1) * mod(i, 1000)
                recv(i) = -1
            end do
            call MPI_REDUCE(send, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
            if (ierr /= MPI_SUCCESS) failures = failures + 1
            if (rank == root) call check_sums(recv)
        end do
    end do

    root = size - 1
    do i = 1, 3
        small(i) = (rank + 1) * i
    end do
    if (rank == root) then
        call MPI_REDUCE(MPI_IN_PLACE, small, 3, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
        do i = 1, 3
            if (small(i) /= size * (size + 1) / 2 * i) failures = failures + 1
        end do
    else
        call MPI_REDUCE(small, ignored, 3, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    end if
    if (ierr /= MPI_SUCCESS) failures = failures + 1

    do i = 1, n
        send(i) = (rank + 1) * mod(i, 1000)
    end do
    call MPI_IALLREDUCE(MPI_IN_PLACE, send, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_WAIT(requests(1), MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS .or. requests(1) /= MPI_REQUEST_NULL) failures = failures + 1
    call check_sums(send)
    do i = 1, 3
        small(i) = (rank + 1) * i
    end do
    call MPI_IRECV(from_left, 1, MPI_INTEGER, mod(rank + size - 1, size), 3, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_IREDUCE(small, ignored, 3, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_ISEND(rank, 1, MPI_INTEGER, mod(rank + 1, size), 3, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_WAITALL(3, requests, statuses, ierr)
    if (ierr /= MPI_SUCCESS .or. any(requests /= MPI_REQUEST_NULL)) failures = failures + 1
    if (from_left /= mod(rank + size - 1, size) .or. statuses(MPI_SOURCE, 1) /= from_left) failures = failures + 1
    if (rank == root .and. ignored(3) /= size * (size + 1) / 2 * 3) failures = failures + 1
    if (failures /= 0) print '(a, i0, a, i0, a)', '[rank ', rank, '] ', failures, ' failures'

    call MPI_ALLREDUCE(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (total == 0) then
            print '(a)', 'foreign_mpi: ok'
        else
            print '(a, i0, a)', 'foreign_mpi: ', total, ' failures'
        end if
    end if
    call MPI_FINALIZE(ierr)
    if (total /= 0) stop 1

contains

    ! buffer(i) must be the sum of (r + 1) * mod(i, 1000) over ranks r: one failure at the first element that is not.
    subroutine check_sums(buffer)
        integer, intent(in) :: buffer(n)
        integer :: j
        do j = 1, n
            if (buffer(j) /= size * (size + 1) / 2 * mod(j, 1000)) then
                failures = failures + 1
                return
            end if
        end do
    end subroutine
end program
