! Global Arrays' GP (global pointer) API for Fortran, on bsp's C library: `use bsp_gp` (beside
! `use bsp`, between bspbegin and bspend), then `g = GP_Create_handle()`,
! `call GP_Set_dimensions(g, 1, dims)`, `ok = GP_Allocate(g)`, and so on. Each routine is an
! explicit interface to the C function of the same name in bsp_gp.h (iso_c_binding), with the
! C function's meaning, which bsp_gp.h describes. In particular, as in C:
! - subscripts, lo and hi are 0-based, and their first entry is the slowest-varying axis (C's
!   row-major order); lo..hi is inclusive;
! - sizes are in bytes; element memory comes from GP_Malloc as a type(c_ptr) (c_f_pointer
!   turns it into a Fortran pointer);
! - GP_Get, GP_Gather, GP_Get_size and GP_Gather_size write their results into the caller's
!   variables at the next GP_Sync or bspsync, not at the call: those variables should have the
!   ASYNCHRONOUS (or TARGET) attribute, so that the compiler does not keep their values in
!   registers across the sync;
! - the leading dimensions ld and ld_sz have ndim - 1 entries (an empty array for ndim = 1).
module bsp_gp
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_ptr
  implicit none
  private
  public :: GP_Initialize, GP_Terminate, GP_Create_handle, GP_Set_dimensions, GP_Set_chunk
  public :: GP_Set_irreg_distr, GP_Allocate, GP_Destroy, GP_Distribution
  public :: GP_Malloc, GP_Free, GP_Assign_local_element, GP_Free_local_element
  public :: GP_Access_element, GP_Release_element, GP_Release_update_element
  public :: GP_Get_size, GP_Get, GP_Put, GP_Gather_size, GP_Gather, GP_Scatter, GP_Memzero, GP_Sync

  interface
    subroutine GP_Initialize() bind(C, name="GP_Initialize")
    end subroutine

    subroutine GP_Terminate() bind(C, name="GP_Terminate")
    end subroutine

    integer(c_int) function GP_Create_handle() bind(C, name="GP_Create_handle")
      import :: c_int
    end function

    subroutine GP_Set_dimensions(g_p, ndim, dims) bind(C, name="GP_Set_dimensions")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p, ndim
      integer(c_int), intent(in) :: dims(*)
    end subroutine

    subroutine GP_Set_chunk(g_p, chunk) bind(C, name="GP_Set_chunk")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: chunk(*)
    end subroutine

    subroutine GP_Set_irreg_distr(g_p, mapc, nblock) bind(C, name="GP_Set_irreg_distr")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: mapc(*), nblock(*)
    end subroutine

    integer(c_int) function GP_Allocate(g_p) bind(C, name="GP_Allocate")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
    end function

    integer(c_int) function GP_Destroy(g_p) bind(C, name="GP_Destroy")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
    end function

    subroutine GP_Distribution(g_p, proc, lo, hi) bind(C, name="GP_Distribution")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p, proc
      integer(c_int), intent(out) :: lo(*), hi(*)
    end subroutine

    type(c_ptr) function GP_Malloc(size) bind(C, name="GP_Malloc")
      import :: c_ptr, c_size_t
      integer(c_size_t), value, intent(in) :: size
    end function

    subroutine GP_Free(ptr) bind(C, name="GP_Free")
      import :: c_ptr
      type(c_ptr), value, intent(in) :: ptr
    end subroutine

    subroutine GP_Assign_local_element(g_p, subscript, ptr, size) bind(C, name="GP_Assign_local_element")
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: subscript(*)
      type(c_ptr), value, intent(in) :: ptr
      integer(c_int), value, intent(in) :: size
    end subroutine

    type(c_ptr) function GP_Free_local_element(g_p, subscript) bind(C, name="GP_Free_local_element")
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: subscript(*)
    end function

    subroutine GP_Access_element(g_p, subscript, ptr, size) bind(C, name="GP_Access_element")
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: subscript(*)
      type(c_ptr), intent(out) :: ptr
      integer(c_int), intent(out) :: size
    end subroutine

    subroutine GP_Release_element(g_p, subscript) bind(C, name="GP_Release_element")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: subscript(*)
    end subroutine

    subroutine GP_Release_update_element(g_p, subscript) bind(C, name="GP_Release_update_element")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: subscript(*)
    end subroutine

    subroutine GP_Get_size(g_p, lo, hi, size) bind(C, name="GP_Get_size")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: lo(*), hi(*)
      integer(c_int), asynchronous :: size
    end subroutine

    subroutine GP_Get(g_p, lo, hi, buf, buf_ptr, ld, buf_size, ld_sz, size, setbuf) bind(C, name="GP_Get")
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: lo(*), hi(*), ld(*), ld_sz(*)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), asynchronous :: buf
      type(c_ptr), asynchronous :: buf_ptr(*)
      integer(c_int), asynchronous :: buf_size(*)
      integer(c_int), asynchronous :: size
      integer(c_int), value, intent(in) :: setbuf
    end subroutine

    subroutine GP_Put(g_p, lo, hi, buf_ptr, ld, buf_size, ld_sz, size, checksize) bind(C, name="GP_Put")
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: g_p
      integer(c_int), intent(in) :: lo(*), hi(*), ld(*), ld_sz(*)
      type(c_ptr), intent(in) :: buf_ptr(*)
      integer(c_int), intent(in) :: buf_size(*)
      integer(c_int), intent(out) :: size
      integer(c_int), value, intent(in) :: checksize
    end subroutine

    subroutine GP_Gather_size(g_p, nv, subscript, size) bind(C, name="GP_Gather_size")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p, nv
      integer(c_int), intent(in) :: subscript(*)
      integer(c_int), asynchronous :: size
    end subroutine

    subroutine GP_Gather(g_p, nv, subscript, buf, buf_ptr, buf_size, size, setbuf) bind(C, name="GP_Gather")
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: g_p, nv
      integer(c_int), intent(in) :: subscript(*)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), asynchronous :: buf
      type(c_ptr), asynchronous :: buf_ptr(*)
      integer(c_int), asynchronous :: buf_size(*)
      integer(c_int), asynchronous :: size
      integer(c_int), value, intent(in) :: setbuf
    end subroutine

    subroutine GP_Scatter(g_p, nv, subscript, buf_ptr, buf_size, size, checksize) bind(C, name="GP_Scatter")
      import :: c_int, c_ptr
      integer(c_int), value, intent(in) :: g_p, nv
      integer(c_int), intent(in) :: subscript(*)
      type(c_ptr), intent(in) :: buf_ptr(*)
      integer(c_int), intent(in) :: buf_size(*)
      integer(c_int), intent(out) :: size
      integer(c_int), value, intent(in) :: checksize
    end subroutine

    subroutine GP_Memzero(g_p) bind(C, name="GP_Memzero")
      import :: c_int
      integer(c_int), value, intent(in) :: g_p
    end subroutine

    subroutine GP_Sync() bind(C, name="GP_Sync")
    end subroutine
  end interface
end module bsp_gp
