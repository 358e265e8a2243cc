! The end of a Fortran interposition test program (reduce_check.f90, requests_check.f90): sums every rank's failed
! checks, has rank 0 print "<program>: <N> ranks, passed" or "<program>: <N> ranks, FAILED (<total> failed checks)",
! finalises MPI and stops with exit status 1 where any rank failed a check.
subroutine redux_check_verdict(program, failures)
    use mpi
    implicit none
    character(*), intent(in) :: program
    integer, intent(in) :: failures
    integer :: rank, nranks, total, ierr

    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
    call MPI_ALLREDUCE(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (total == 0) then
            write (*, '(2a, i0, a)') program, ': ', nranks, ' ranks, passed'
        else
            write (*, '(2a, i0, a, i0, a)') program, ': ', nranks, ' ranks, FAILED (', total, ' failed checks)'
        end if
    end if
    call MPI_FINALIZE(ierr)
    if (total /= 0) stop 1
end subroutine
