! The nonblocking and persistent reductions from Fortran: a program that knows nothing of libredux calls them and the
! completion calls through `use mpi` (and Open MPI's `use mpi_ext` for its MPIX_ persistent inits), and checks
!   1. that the Fortran symbols it calls (gfortran: mpi_iallreduce_, mpi_wait_, ...) are libredux's;
!   2. that each reduction's request is libredux's where REDUX_EXPECT_PLANNED=1 (set with a strategy in
!      REDUX_ALGORITHM, 2 ranks or more) and the MPI library's own where it is 0 (native) or at one rank
!      (request_probe.c: redux_request_info on MPI_Request_f2c of the Fortran handle). A nonblocking call runs a plan
!      made earlier, so a blocking call of the same key comes first;
!   3. every result against a closed form: rank r contributes (r + 1) * i + k to element i in round k, so every sum
!      is s * i + nranks * k with s = nranks * (nranks + 1) / 2. MPI_IALLREDUCE in place completed by MPI_WAIT after
!      MPI_REQUEST_GET_STATUS (which must leave the request as it is); MPI_IREDUCE to the last rank completed by a
!      loop of MPI_TEST; MPI_IREDUCE_SCATTER_BLOCK completed by MPI_WAITALL beside an MPI_IRECV / MPI_ISEND pair
!      whose status must name its source and tag; the three persistent inits (the allreduce in place) started in six
!      rounds with new data by MPI_START and MPI_STARTALL and completed by MPI_WAITANY, MPI_WAITSOME, MPI_TESTALL,
!      MPI_TESTANY, MPI_TESTSOME, and MPI_WAITALL after a loop of MPI_REQUEST_GET_STATUS, each index seen once and
!      MPI_UNDEFINED once none is active; then MPI_REQUEST_FREE. A completed nonblocking or freed request must read
!      MPI_REQUEST_NULL. On a communicator of its own, MPI_IALLREDUCE between MPI_BARRIERs and no blocking reduction:
!      libredux's from the third call on (the barriers make the state and plan the key). MPI_REDUCE_SCATTER,
!      MPI_IREDUCE_SCATTER and the persistent init with every count the same are MPI_REDUCE_SCATTER_BLOCK's (the
!      requests libredux's where planned); with counts that differ, the library's own (its request never libredux's).
! A request that never completes hangs the program until ctest's timeout. The persistent part is built where the
! MPI's Fortran has persistent reductions (REDUX_PERSISTENT_MPI: MPI 4.0's names, REDUX_PERSISTENT_MPIX: Open MPI
! 4.1's) and otherwise skipped, which rank 0 says. MPICH 4.0's own persistent reductions (native, one rank) are
! completed by MPI_WAITALL in every round: its MPI_WAITANY, MPI_TESTANY and MPI_WAITSOME leave them active and its
! MPI_TESTALL reports MPI_ERR_IN_STATUS for them. Exit status 0 when every rank passed every check.
program requests_check_f
    use mpi
#if defined(REDUX_PERSISTENT_MPIX)
    use mpi_ext
#endif
    use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
    implicit none

#if defined(REDUX_PERSISTENT_MPIX)
#define ALLREDUCE_INIT MPIX_ALLREDUCE_INIT
#define REDUCE_INIT MPIX_REDUCE_INIT
#define REDUCE_SCATTER_BLOCK_INIT MPIX_REDUCE_SCATTER_BLOCK_INIT
#define REDUCE_SCATTER_INIT MPIX_REDUCE_SCATTER_INIT
#elif defined(REDUX_PERSISTENT_MPI)
#define ALLREDUCE_INIT MPI_ALLREDUCE_INIT
#define REDUCE_INIT MPI_REDUCE_INIT
#define REDUCE_SCATTER_BLOCK_INIT MPI_REDUCE_SCATTER_BLOCK_INIT
#define REDUCE_SCATTER_INIT MPI_REDUCE_SCATTER_INIT
#endif

    include 'probe.inc'
    interface
        function probe_request_is_libredux(request) bind(C, name="redux_probe_request_is_libredux")
            import :: c_int
            integer(c_int), intent(in) :: request
            integer(c_int) :: probe_request_is_libredux
        end function
    end interface

    integer, parameter :: n = 1000, block = 300, tag = 7
    integer :: rank, nranks, ierr, failures, s
    logical :: expect_planned, expect_native
    character(len=8) :: expect

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
    failures = 0
    s = nranks * (nranks + 1) / 2
    call get_environment_variable('REDUX_EXPECT_PLANNED', expect)
    expect_planned = expect == '1' .and. nranks > 1
    expect_native = expect == '0' .or. nranks == 1

    call check_symbols()
    call nonblocking_allreduce()
    call nonblocking_reduce()
    call nonblocking_reduce_scatter_block()
    call reduce_scatter()
    call nonblocking_between_barriers()
#if defined(ALLREDUCE_INIT)
    call persistent()
#else
    if (rank == 0) write (*, '(a)') 'requests_check_f: this MPI''s Fortran has no persistent reductions: skipped'
#endif

    call redux_check_verdict('requests_check_f', failures)

contains

    subroutine check_symbols()
        character(len=32), parameter :: symbols(11) = [character(len=32) :: 'mpi_iallreduce_', 'mpi_ireduce_', &
            'mpi_ireduce_scatter_block_', 'mpi_wait_', 'mpi_waitall_', 'mpi_test_', 'mpi_start_', 'mpi_request_free_', &
            'mpi_barrier_', 'mpi_reduce_scatter_', 'mpi_ireduce_scatter_']
        integer :: k
        do k = 1, size(symbols)
            if (probe_symbol_in_libredux(trim(symbols(k)) // c_null_char) /= 1) call fail(trim(symbols(k)))
        end do
    end subroutine

    ! In place: the blocking call plans the key, the nonblocking one runs the plan.
    subroutine nonblocking_allreduce()
        integer :: buffer(n), request, held, status(MPI_STATUS_SIZE)
        logical :: flag
        call fill(buffer, 0)
        call MPI_ALLREDUCE(MPI_IN_PLACE, buffer, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call check_ierr('MPI_ALLREDUCE before MPI_IALLREDUCE')
        call fill(buffer, 1)
        call MPI_IALLREDUCE(MPI_IN_PLACE, buffer, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
        call check_ierr('MPI_IALLREDUCE')
        call check_ours(request, 'MPI_IALLREDUCE')
        held = request
        call MPI_REQUEST_GET_STATUS(request, flag, status, ierr)
        call check_ierr('MPI_REQUEST_GET_STATUS')
        if (request /= held) call fail('MPI_REQUEST_GET_STATUS changed the request')
        call MPI_WAIT(request, status, ierr)
        call check_ierr('MPI_WAIT')
        if (request /= MPI_REQUEST_NULL) call fail('MPI_IALLREDUCE: MPI_WAIT left the request other than null')
        call check_sums(buffer, 1, 1, 'MPI_IALLREDUCE in place + MPI_WAIT')
    end subroutine

    ! On a communicator that sees no blocking reduction: the first MPI_BARRIER after an MPI_IALLREDUCE makes libredux's
    ! state, the second plans the call kept since, so the third call runs the plan.
    subroutine nonblocking_between_barriers()
        integer :: buffer(n), request, comm, k
        call MPI_COMM_DUP(MPI_COMM_WORLD, comm, ierr)
        do k = 0, 2
            call fill(buffer, k)
            call MPI_IALLREDUCE(MPI_IN_PLACE, buffer, n, MPI_INTEGER, MPI_SUM, comm, request, ierr)
            call check_ierr('MPI_IALLREDUCE between barriers')
            if (k == 2) call check_ours(request, 'MPI_IALLREDUCE after two barriers')
            if (k < 2 .and. probe_request_is_libredux(request) /= 0) then
                call fail('MPI_IALLREDUCE before two barriers: planned already')
            end if
            call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
            call check_ierr('MPI_WAIT between barriers')
            call check_sums(buffer, 1, k, 'MPI_IALLREDUCE between barriers')
            call MPI_BARRIER(comm, ierr)
            call check_ierr('MPI_BARRIER')
        end do
        call MPI_COMM_FREE(comm, ierr)
    end subroutine

    ! To the last rank (not in place: MPICH 4.0's own MPI_REDUCE, which a native run reaches, crashes with MPI_IN_PLACE
    ! at a root other than 0).
    subroutine nonblocking_reduce()
        integer :: send(n), recv(n), request, root
        logical :: flag
        root = nranks - 1
        call fill(send, 2)
        call MPI_REDUCE(send, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
        call check_ierr('MPI_REDUCE before MPI_IREDUCE')
        call fill(send, 3)
        recv = -1
        call MPI_IREDUCE(send, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, request, ierr)
        call check_ierr('MPI_IREDUCE')
        call check_ours(request, 'MPI_IREDUCE')
        flag = .false.
        do while (.not. flag)
            call MPI_TEST(request, flag, MPI_STATUS_IGNORE, ierr)
            call check_ierr('MPI_TEST')
            if (ierr /= MPI_SUCCESS) return
        end do
        if (request /= MPI_REQUEST_NULL) call fail('MPI_IREDUCE: MPI_TEST left the request other than null')
        if (rank == root) call check_sums(recv, 1, 3, 'MPI_IREDUCE + MPI_TEST')
    end subroutine

    ! Beside a point-to-point pair: an MPI_IRECV from the left neighbour and an MPI_ISEND to the right one.
    subroutine nonblocking_reduce_scatter_block()
        integer :: send(nranks * block), recv(block), requests(3), statuses(MPI_STATUS_SIZE, 3)
        integer :: from_left, left, right, k
        left = mod(rank + nranks - 1, nranks)
        right = mod(rank + 1, nranks)
        call fill(send, 4)
        call MPI_REDUCE_SCATTER_BLOCK(send, recv, block, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call check_ierr('MPI_REDUCE_SCATTER_BLOCK before MPI_IREDUCE_SCATTER_BLOCK')
        call fill(send, 5)
        recv = -1
        from_left = -1
        call MPI_IRECV(from_left, 1, MPI_INTEGER, left, tag, MPI_COMM_WORLD, requests(1), ierr)
        call MPI_IREDUCE_SCATTER_BLOCK(send, recv, block, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, requests(2), ierr)
        call check_ierr('MPI_IREDUCE_SCATTER_BLOCK')
        call check_ours(requests(2), 'MPI_IREDUCE_SCATTER_BLOCK')
        call MPI_ISEND(rank, 1, MPI_INTEGER, right, tag, MPI_COMM_WORLD, requests(3), ierr)
        statuses = -5
        call MPI_WAITALL(3, requests, statuses, ierr)
        call check_ierr('MPI_WAITALL')
        do k = 1, 3
            if (requests(k) /= MPI_REQUEST_NULL) call fail('MPI_WAITALL left a request other than null')
        end do
        if (from_left /= left) call fail('MPI_IRECV beside MPI_IREDUCE_SCATTER_BLOCK: wrong message')
        if (statuses(MPI_SOURCE, 1) /= left .or. statuses(MPI_TAG, 1) /= tag) then
            call fail('MPI_WAITALL: the receive''s status does not name its source and tag')
        end if
        call check_sums(recv, rank * block + 1, 5, 'MPI_IREDUCE_SCATTER_BLOCK + MPI_WAITALL')
    end subroutine

    ! MPI_REDUCE_SCATTER with every count `block` (the key MPI_REDUCE_SCATTER_BLOCK planned above), nonblocking and
    ! persistent; then counts that differ (block + r at rank r), which are the library's own.
    subroutine reduce_scatter()
        integer :: send(nranks * (block + nranks)), recv(block + nranks), counts(nranks), request, r, k, first
        counts = block
        call fill(send(1:nranks * block), 40)
        call MPI_REDUCE_SCATTER(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call check_ierr('MPI_REDUCE_SCATTER')
        call check_sums(recv(1:block), rank * block + 1, 40, 'MPI_REDUCE_SCATTER, every count the same')
        call fill(send(1:nranks * block), 41)
        recv = -1
        call MPI_IREDUCE_SCATTER(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
        call check_ierr('MPI_IREDUCE_SCATTER')
        call check_ours(request, 'MPI_IREDUCE_SCATTER')
        call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
        call check_ierr('MPI_WAIT on MPI_IREDUCE_SCATTER')
        call check_sums(recv(1:block), rank * block + 1, 41, 'MPI_IREDUCE_SCATTER + MPI_WAIT')
#if defined(REDUCE_SCATTER_INIT)
        call REDUCE_SCATTER_INIT(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, request, ierr)
        call check_ierr('REDUCE_SCATTER_INIT')
        call check_ours(request, 'REDUCE_SCATTER_INIT')
        do k = 42, 43
            call fill(send(1:nranks * block), k)
            recv = -1
            call MPI_START(request, ierr)
            call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
            call check_ierr('MPI_START, MPI_WAIT on REDUCE_SCATTER_INIT')
            call check_sums(recv(1:block), rank * block + 1, k, 'persistent reduce-scatter')
        end do
        call MPI_REQUEST_FREE(request, ierr)
        call check_ierr('MPI_REQUEST_FREE on REDUCE_SCATTER_INIT')
#endif
        do r = 1, nranks
            counts(r) = block + r - 1
        end do
        first = rank * block + rank * (rank - 1) / 2 + 1
        call fill(send(1:sum(counts)), 44)
        recv = -1
        call MPI_REDUCE_SCATTER(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call check_ierr('MPI_REDUCE_SCATTER, counts that differ')
        call check_sums(recv(1:block + rank), first, 44, 'MPI_REDUCE_SCATTER, counts that differ')
        if (nranks > 1) then
            call fill(send(1:sum(counts)), 45)
            recv = -1
            call MPI_IREDUCE_SCATTER(send, recv, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
            call check_ierr('MPI_IREDUCE_SCATTER, counts that differ')
            if (probe_request_is_libredux(request) /= 0) call fail('MPI_IREDUCE_SCATTER, counts that differ: ' // &
                'the request is not the library''s own')
            call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
            call check_ierr('MPI_WAIT on MPI_IREDUCE_SCATTER, counts that differ')
            call check_sums(recv(1:block + rank), first, 45, 'MPI_IREDUCE_SCATTER, counts that differ')
        end if
    end subroutine

#if defined(ALLREDUCE_INIT)
    ! The three persistent inits, started in six rounds with new data and completed by a different call each round.
    subroutine persistent()
        integer :: in_place(n), send(n), recv(n), rs_send(nranks * block), rs_recv(block), requests(3), root, k
        logical :: waitall_only
        root = nranks / 2
        call ALLREDUCE_INIT(MPI_IN_PLACE, in_place, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
                            requests(1), ierr)
        call check_ierr('ALLREDUCE_INIT')
        call REDUCE_INIT(send, recv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, requests(2), ierr)
        call check_ierr('REDUCE_INIT')
        call REDUCE_SCATTER_BLOCK_INIT(rs_send, rs_recv, block, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                                       MPI_INFO_NULL, requests(3), ierr)
        call check_ierr('REDUCE_SCATTER_BLOCK_INIT')
        call check_ours(requests(1), 'ALLREDUCE_INIT')
        call check_ours(requests(2), 'REDUCE_INIT')
        call check_ours(requests(3), 'REDUCE_SCATTER_BLOCK_INIT')
        waitall_only = mpich_library() .and. probe_request_is_libredux(requests(1)) /= 1
        if (waitall_only .and. rank == 0) write (*, '(a)') 'requests_check_f: MPICH''s own persistent reductions: ' // &
            'completed by MPI_WAITALL only (its MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME and MPI_TESTALL mishandle them)'
        do k = 1, 6
            call fill(in_place, 10 + k)
            call fill(send, 20 + k)
            call fill(rs_send, 30 + k)
            recv = -1
            rs_recv = -1
            call run_round(requests, k, waitall_only)
            call check_sums(in_place, 1, 10 + k, 'persistent allreduce in place')
            if (rank == root) call check_sums(recv, 1, 20 + k, 'persistent reduce')
            call check_sums(rs_recv, rank * block + 1, 30 + k, 'persistent reduce-scatter-block')
        end do
        do k = 1, 3
            call MPI_REQUEST_FREE(requests(k), ierr)
            call check_ierr('MPI_REQUEST_FREE')
            if (requests(k) /= MPI_REQUEST_NULL) call fail('MPI_REQUEST_FREE left the request other than null')
        end do
    end subroutine

    ! Starts the three persistent requests and completes them, by the calls of round k (by MPI_WAITALL in every round
    ! where `waitall_only`).
    subroutine run_round(requests, k, waitall_only)
        integer, intent(inout) :: requests(3)
        integer, intent(in) :: k
        logical, intent(in) :: waitall_only
        integer :: i, index, outcount, indices(3), statuses(MPI_STATUS_SIZE, 3), status(MPI_STATUS_SIZE), done
        logical :: flag, seen(3)
        if (k == 1 .or. k == 6) then
            do i = 1, 3
                call MPI_START(requests(i), ierr)
                call check_ierr('MPI_START')
            end do
        else
            call MPI_STARTALL(3, requests, ierr)
            call check_ierr('MPI_STARTALL')
        end if
        seen = .false.
        done = 0
        select case (merge(6, k, waitall_only))
        case (1, 4)
            do while (done < 3)
                flag = .true.
                if (k == 1) then
                    call MPI_WAITANY(3, requests, index, status, ierr)
                else
                    call MPI_TESTANY(3, requests, index, flag, status, ierr)
                end if
                call check_ierr('MPI_WAITANY / MPI_TESTANY')
                if (ierr /= MPI_SUCCESS) return
                if (flag) call see(index, seen, done)
            end do
            if (k == 1) call MPI_WAITANY(3, requests, index, status, ierr)
            if (k == 4) call MPI_TESTANY(3, requests, index, flag, status, ierr)
            if (index /= MPI_UNDEFINED .or. .not. flag) then
                call fail('MPI_WAITANY / MPI_TESTANY: none active, index defined')
            end if
        case (2, 5)
            do while (done < 3)
                if (k == 2) then
                    call MPI_WAITSOME(3, requests, outcount, indices, statuses, ierr)
                else
                    call MPI_TESTSOME(3, requests, outcount, indices, MPI_STATUSES_IGNORE, ierr)
                end if
                call check_ierr('MPI_WAITSOME / MPI_TESTSOME')
                if (ierr /= MPI_SUCCESS) return
                if (outcount == MPI_UNDEFINED) then
                    call fail('MPI_WAITSOME / MPI_TESTSOME: outcount undefined while a request is active')
                    return
                end if
                do i = 1, outcount
                    call see(indices(i), seen, done)
                end do
            end do
            call MPI_WAITSOME(3, requests, outcount, indices, statuses, ierr)
            if (outcount /= MPI_UNDEFINED) call fail('MPI_WAITSOME: none active, outcount defined')
        case (3)
            flag = .false.
            do while (.not. flag)
                call MPI_TESTALL(3, requests, flag, MPI_STATUSES_IGNORE, ierr)
                call check_ierr('MPI_TESTALL')
                if (ierr /= MPI_SUCCESS) return
            end do
        case default
            ! With MPI_STATUS_IGNORE, for which Open MPI 4.1's own MPI_REQUEST_GET_STATUS answers .FALSE. unasked.
            flag = waitall_only
            do while (.not. flag)
                call MPI_REQUEST_GET_STATUS(requests(1), flag, MPI_STATUS_IGNORE, ierr)
                call check_ierr('MPI_REQUEST_GET_STATUS')
                if (ierr /= MPI_SUCCESS) return
            end do
            call MPI_WAITALL(3, requests, statuses, ierr)
            call check_ierr('MPI_WAITALL')
        end select
    end subroutine

    ! A completion call returned index i (1-based) of three: each once.
    subroutine see(i, seen, done)
        integer, intent(in) :: i
        logical, intent(inout) :: seen(3)
        integer, intent(inout) :: done
        if (i < 1 .or. i > 3) then
            call fail('a completion call returned an index outside 1..3')
            done = 3
        else if (seen(i)) then
            call fail('a completion call returned an index twice')
            done = 3
        else
            seen(i) = .true.
            done = done + 1
        end if
    end subroutine

    ! Whether the MPI library is MPICH (or one derived from it).
    logical function mpich_library()
        character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
        integer :: length
        call MPI_GET_LIBRARY_VERSION(version, length, ierr)
        mpich_library = index(version(1:length), 'MPICH') > 0
    end function
#endif

    ! buffer(i) = (rank + 1) * i + k: element i's sum over ranks is s * i + nranks * k.
    subroutine fill(buffer, k)
        integer, intent(out) :: buffer(:)
        integer, intent(in) :: k
        integer :: i
        do i = 1, size(buffer)
            buffer(i) = (rank + 1) * i + k
        end do
    end subroutine

    ! buffer(j) must be the sum of element first + j - 1 in round k.
    subroutine check_sums(buffer, first, k, check)
        integer, intent(in) :: buffer(:), first, k
        character(*), intent(in) :: check
        integer :: j, want
        do j = 1, size(buffer)
            want = s * (first + j - 1) + nranks * k
            if (buffer(j) /= want) then
                write (0, '(a, i0, 3a, i0, a, i0, a, i0)') '[rank ', rank, '] ', check, ': element ', j, ' is ', &
                    buffer(j), ', expected ', want
                failures = failures + 1
                return
            end if
        end do
    end subroutine

    subroutine check_ours(request, call)
        integer, intent(in) :: request
        character(*), intent(in) :: call
        integer :: ours
        ours = probe_request_is_libredux(request)
        if (ours < 0 .or. (expect_planned .and. ours /= 1) .or. (expect_native .and. ours /= 0)) then
            write (0, '(a, i0, 3a, i0)') '[rank ', rank, '] ', call, ': redux_request_info says ', ours
            failures = failures + 1
        end if
    end subroutine

    subroutine check_ierr(call)
        character(*), intent(in) :: call
        if (ierr /= MPI_SUCCESS) call fail(call // ': ierr not MPI_SUCCESS')
    end subroutine

    subroutine fail(check)
        character(*), intent(in) :: check
        write (0, '(a, i0, 2a)') '[rank ', rank, '] ', check
        failures = failures + 1
    end subroutine

end program requests_check_f
