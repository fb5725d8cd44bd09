! bspinit with the SPMD subroutine, the number of processes read from the input first.
module counts
  implicit none
  integer :: nprocs_asked = 0
end module counts

subroutine spmd()
  use bsp
  use counts
  implicit none
  integer :: sum, one, q
  call bspbegin(nprocs_asked)
  sum = 0
  call bsppushreg(sum, 4)
  call bspsync()
  one = bsppid() + 1
  do q = 0, bspnprocs() - 1
    call bspput(q, one, sum, 0, 4)
  end do
  call bspsync()
  if (sum /= bspnprocs()) call bspabort('the highest pid''s put stays')
  print '(a,i0,a,i0)', 'process ', bsppid(), ' of ', bspnprocs()
  call bsppopreg(sum)
  call bspsync()
  call bspend()
end subroutine spmd

program init
  use bsp
  use counts
  implicit none
  external :: spmd
  call bspinit(spmd)
  read (*, *) nprocs_asked
  call spmd()
  print '(a,i0,a)', 'done on ', nprocs_asked, ' processes'
end program init
