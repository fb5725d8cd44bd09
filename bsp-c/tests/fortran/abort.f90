! bspabort from the last process, while the others wait in a sync.
program abort
  use bsp
  implicit none
  call bspbegin(bspnprocs())
  if (bsppid() == bspnprocs() - 1) call bspabort('stopping here')
  call bspsync()
  call bspend()
end program abort
