! The BSPlib Fortran interface: bspbegin as the first statement of the program, registration,
! put and get of arrays and scalars, tagged messages. Checks its results (bspabort otherwise)
! and prints one line per process, then one after bspend.
program drma
  use bsp
  implicit none
  integer :: p, s, left, right, i, n, nbytes, status, tagsz
  integer :: x(4), y
  double precision :: d, got
  integer :: tag, payload(3), msg(3)

  call bspbegin(bspnprocs())
  p = bspnprocs()
  s = bsppid()
  right = mod(s + 1, p)
  left = mod(s + p - 1, p)

  ! put an array slice into the right neighbour's registered array (offsets in bytes)
  x = -1
  d = s + 0.5d0
  call bsppushreg(x, 16)
  call bsppushreg(d, 8)
  call bspsync()
  call bspput(right, [(10 * s + i, i = 1, 2)], x, 8, 8)
  got = -1
  call bspget(left, d, 0, got, 8)
  if (nint(got) /= -1) call bspabort('a get destination changed before the sync')
  call bspsync()
  if (x(1) /= -1 .or. x(3) /= 10 * left + 1 .or. x(4) /= 10 * left + 2) call bspabort('bspput')
  if (nint(2 * got) /= 2 * left + 1) call bspabort('bspget')

  ! one tagged message to the right neighbour
  tagsz = 4
  call bspsettagsize(tagsz)
  if (tagsz /= 0) call bspabort('bspsettagsize returns the size in force')
  call bspsync()
  tag = 100 + s
  payload = [s, 2 * s, 3 * s]
  call bspsend(right, tag, payload, 12)
  call bspsync()
  call bspqsize(n, nbytes)
  if (n /= 1 .or. nbytes /= 12) call bspabort('bspqsize')
  call bspgettag(status, tag)
  if (status /= 12 .or. tag /= 100 + left) call bspabort('bspgettag')
  call bspmove(msg, 12)
  if (any(msg /= [left, 2 * left, 3 * left])) call bspabort('bspmove')

  call bsppopreg(d)
  call bsppopreg(x)
  call bspsync()
  y = x(3)
  print '(a,i0,a,i0,a,i0)', 'process ', s, ' of ', p, ': got ', y
  call bspend()
  print '(a)', 'after bspend'
end program drma
