! The GP API from Fortran (module bsp_gp): a 1-D array of 2p elements, element i holding i + 1
! integers, each 10 i, assigned from GP_Malloc memory by its owner; the sizes and the whole array
! read with GP_Get_size and GP_Get (results at the sync), two elements with GP_Gather_size and
! GP_Gather, one element per process overwritten with GP_Scatter, then GP_Memzero, GP_Destroy,
! GP_Terminate. Checks every result (bspabort otherwise) and prints one line per process.
program gp
  use bsp
  use bsp_gp
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_ptr, c_f_pointer, c_loc, c_associated
  implicit none
  integer :: p, s, n, i, right, mine
  integer(c_int) :: g, dims(1), lo(1), hi(1), rlo(1), rhi(1), sub(1), subs(2), none(0), bytes, put_total
  integer(c_int), asynchronous :: total, got, gathered, sizes(64), gsizes(2)
  type(c_ptr), asynchronous :: ptrs(64), gptrs(2)
  integer(c_int), asynchronous, allocatable :: buf(:)
  integer(c_int), asynchronous :: gbuf(64)
  integer(c_int), allocatable, target :: negated(:)
  type(c_ptr) :: mem, at, sptr(1)
  integer(c_int) :: ssize(1)
  integer(c_int), pointer :: blob(:)

  call bspbegin(bspnprocs())
  p = bspnprocs()
  s = bsppid()
  n = 2 * p
  if (n > 64) call bspabort('gp.f90 runs on at most 32 processes')

  call GP_Initialize()
  g = GP_Create_handle()
  dims(1) = n
  call GP_Set_dimensions(g, 1, dims)
  if (GP_Allocate(g) /= 1) call bspabort('GP_Allocate returns 1')

  ! Each owner assigns its elements from GP_Malloc memory.
  call GP_Distribution(g, s, lo, hi)
  mine = 0
  do i = lo(1), hi(1)
    mem = GP_Malloc(int(4 * (i + 1), c_size_t))
    call c_f_pointer(mem, blob, [i + 1])
    blob = 10 * i
    sub(1) = i
    call GP_Assign_local_element(g, sub, mem, 4 * (i + 1))
    call GP_Access_element(g, sub, at, bytes)
    if (.not. c_associated(at, mem) .or. bytes /= 4 * (i + 1)) call bspabort('GP_Access_element')
    call GP_Release_element(g, sub)
    mine = mine + 1
  end do
  call GP_Sync()

  ! The whole array's size, then the array, both written at the sync.
  lo(1) = 0
  hi(1) = n - 1
  total = -1
  call GP_Get_size(g, lo, hi, total)
  if (total /= -1) call bspabort('GP_Get_size wrote before the sync')
  call GP_Sync()
  if (total /= 4 * n * (n + 1) / 2) call bspabort('GP_Get_size')
  allocate (buf(total / 4))
  buf = -1
  got = -1
  call GP_Get(g, lo, hi, buf, ptrs, none, sizes, none, got, 0)
  if (got /= -1 .or. any(buf /= -1)) call bspabort('GP_Get wrote before the sync')
  call GP_Sync()
  if (got /= total) call bspabort('GP_Get: the total size')
  do i = 0, n - 1
    if (sizes(i + 1) /= 4 * (i + 1)) call bspabort('GP_Get: an element size')
    call c_f_pointer(ptrs(i + 1), blob, [i + 1])
    if (any(blob /= 10 * i)) call bspabort('GP_Get: an element')
  end do

  ! The last and the first element, in that order.
  subs = [n - 1, 0]
  gathered = -1
  call GP_Gather_size(g, 2, subs, gathered)
  call GP_Gather(g, 2, subs, gbuf, gptrs, gsizes, got, 0)
  call GP_Sync()
  if (gathered /= 4 * (n + 1) .or. got /= gathered) call bspabort('GP_Gather_size')
  if (any(gsizes /= [4 * n, 4])) call bspabort('GP_Gather: the sizes')
  if (any(gbuf(1:n) /= 10 * (n - 1)) .or. gbuf(n + 1) /= 0) call bspabort('GP_Gather: the data')

  ! Each process negates the first element of its right neighbour's block.
  right = mod(s + 1, p)
  call GP_Distribution(g, right, rlo, rhi)
  allocate (negated(rlo(1) + 1), source=-10 * rlo(1))
  sptr(1) = c_loc(negated)
  ssize(1) = 4 * (rlo(1) + 1)
  sub(1) = rlo(1)
  call GP_Scatter(g, 1, sub, sptr, ssize, put_total, 1)
  if (put_total /= ssize(1)) call bspabort('GP_Scatter: the total size')
  call GP_Sync()
  call GP_Distribution(g, s, lo, hi)
  sub(1) = lo(1)
  call GP_Access_element(g, sub, at, bytes)
  call c_f_pointer(at, blob, [lo(1) + 1])
  if (any(blob /= -10 * lo(1))) call bspabort('GP_Scatter: the element')
  call GP_Release_element(g, sub)

  ! Zeroed, then destroyed.
  call GP_Memzero(g)
  call GP_Access_element(g, sub, at, bytes)
  call c_f_pointer(at, blob, [lo(1) + 1])
  if (any(blob /= 0)) call bspabort('GP_Memzero')
  call GP_Release_element(g, sub)
  if (GP_Destroy(g) /= 1) call bspabort('GP_Destroy returns 1')
  call GP_Terminate()

  print '(a,i0,a,i0,a,i0,a,i0,a)', 'process ', s, ' of ', p, ': ', mine, ' elements, ', total, ' bytes in all'
  call bspend()
end program gp
