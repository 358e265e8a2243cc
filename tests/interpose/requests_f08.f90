! The nonblocking and persistent reductions from MPICH's `use mpi_f08` binding, whose completion calls are the
! library's own (PMPI_Wait, ...): each reduction it starts must be one those calls complete, or the program hangs
! until ctest's timeout. Under REDUX_ALGORITHM=binomial, after a blocking MPI_Allreduce (libredux's) made the plan a
! nonblocking call would run: MPI_Iallreduce completed by MPI_Wait, MPI_Ireduce to the last rank by a loop of
! MPI_Test, MPI_Allreduce_init started twice with new data and completed by MPI_Wait, then MPI_Request_free;
! MPI_Ireduce_scatter and MPI_Reduce_scatter_init with every count the same (MPI_Ireduce_scatter_block's way). Every
! result is checked against a closed form: rank r contributes (r + 1) * i + k to element i in round k, so every sum
! is s * i + nranks * k with s = nranks * (nranks + 1) / 2. Exit status 0 when every rank passed every check.
program requests_f08
    use mpi_f08
    implicit none
    integer, parameter :: n = 100
    integer :: rank, nranks, s, failures, k, i
    integer :: send(n), recv(n)
    integer, allocatable :: send_all(:), counts(:)
    logical :: done
    type(MPI_Request) :: request

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    s = nranks * (nranks + 1) / 2
    failures = 0
    allocate (send_all(n * nranks), counts(nranks))
    counts = n

    call fill(0)
    call MPI_Allreduce(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call check(0, 'MPI_Allreduce')

    call fill(1)
    call MPI_Iallreduce(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request)
    call MPI_Wait(request, MPI_STATUS_IGNORE)
    call check(1, 'MPI_Iallreduce')

    call fill(2)
    call MPI_Ireduce(send, recv, n, MPI_INTEGER, MPI_SUM, nranks - 1, MPI_COMM_WORLD, request)
    done = .false.
    do while (.not. done)
        call MPI_Test(request, done, MPI_STATUS_IGNORE)
    end do
    if (rank == nranks - 1) call check(2, 'MPI_Ireduce')

    call MPI_Allreduce_init(send, recv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, request)
    do k = 3, 4
        call fill(k)
        call MPI_Start(request)
        call MPI_Wait(request, MPI_STATUS_IGNORE)
        call check(k, 'MPI_Allreduce_init')
    end do
    call MPI_Request_free(request)

    ! MPI_Ireduce_scatter and its persistent init with every count n: MPI_Ireduce_scatter_block's way, so the f08
    ! binding's own must run them too.
    call fill_all(5)
    call MPI_Ireduce_scatter(send_all, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request)
    call MPI_Wait(request, MPI_STATUS_IGNORE)
    call check_block(5, 'MPI_Ireduce_scatter')
    call MPI_Reduce_scatter_init(send_all, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, request)
    call fill_all(6)
    call MPI_Start(request)
    call MPI_Wait(request, MPI_STATUS_IGNORE)
    call check_block(6, 'MPI_Reduce_scatter_init')
    call MPI_Request_free(request)

    call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) write (*, '(a, i0, a, i0, a)') 'requests_f08: ', nranks, ' ranks, ', failures, ' failed checks'
    call MPI_Finalize()
    if (failures /= 0) stop 1

contains

    subroutine fill(round)
        integer, intent(in) :: round
        do i = 1, n
            send(i) = (rank + 1) * i + round
        end do
        recv = -1
    end subroutine

    ! send_all(i) = (rank + 1) * i + round over the whole vector of n * nranks elements.
    subroutine fill_all(round)
        integer, intent(in) :: round
        do i = 1, n * nranks
            send_all(i) = (rank + 1) * i + round
        end do
        recv = -1
    end subroutine

    ! recv holds this rank's block: elements rank * n + 1 .. (rank + 1) * n of the sum.
    subroutine check_block(round, what)
        integer, intent(in) :: round
        character(*), intent(in) :: what
        do i = 1, n
            if (recv(i) /= s * (rank * n + i) + nranks * round) then
                write (*, '(a, i0, 3a, i0, a, i0, a, i0)') 'rank ', rank, ': ', what, ' element ', i, ': ', &
                    recv(i), ' instead of ', s * (rank * n + i) + nranks * round
                failures = failures + 1
                return
            end if
        end do
    end subroutine

    subroutine check(round, what)
        integer, intent(in) :: round
        character(*), intent(in) :: what
        do i = 1, n
            if (recv(i) /= s * i + nranks * round) then
                write (*, '(a, i0, 3a, i0, a, i0, a, i0)') 'rank ', rank, ': ', what, ' element ', i, ': ', &
                    recv(i), ' instead of ', s * i + nranks * round
                failures = failures + 1
                return
            end if
        end do
    end subroutine
end program
