! The BSPlib Fortran interface (the manual pages' FORTRAN SYNOPSIS) on bsp's C library:
! `use bsp`, then `call bspbegin(bspnprocs())`, `call bsppushreg(x, 4)`, `call bspput(...)`,
! and so on. Each routine is an explicit interface to the C function of the same name without
! the underscore (iso_c_binding); buffers are assumed-type, so any variable or array of any
! type is passed by address, as in C. Offsets and sizes are in bytes.
module bsp
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_ptr, c_funptr, c_funloc, c_char, c_null_char, &
    c_null_ptr
  implicit none
  private
  public :: bspbegin, bspend, bspinit, bspabort, bspnprocs, bsppid, bsptime, bspsync
  public :: bsppushreg, bsppopreg, bspput, bsphpput, bspget, bsphpget
  public :: bspsettagsize, bspsend, bspqsize, bspgettag, bspmove, bsphpmove

  interface
    subroutine bspbegin(maxprocs) bind(C, name="bsp_begin")
      import :: c_int
      integer(c_int), value, intent(in) :: maxprocs
    end subroutine

    subroutine bspend() bind(C, name="bsp_end")
    end subroutine

    integer(c_int) function bspnprocs() bind(C, name="bsp_nprocs")
      import :: c_int
    end function

    integer(c_int) function bsppid() bind(C, name="bsp_pid")
      import :: c_int
    end function

    real(c_double) function bsptime() bind(C, name="bsp_time")
      import :: c_double
    end function

    subroutine bspsync() bind(C, name="bsp_sync")
    end subroutine

    subroutine bsppushreg(ident, size) bind(C, name="bsp_push_reg")
      import :: c_int
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: ident
      type(*), dimension(*), intent(in) :: ident
      integer(c_int), value, intent(in) :: size
    end subroutine

    subroutine bsppopreg(ident) bind(C, name="bsp_pop_reg")
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: ident
      type(*), dimension(*), intent(in) :: ident
    end subroutine

    subroutine bspput(pid, src, dst, offset, nbytes) bind(C, name="bsp_put")
      import :: c_int
      integer(c_int), value, intent(in) :: pid, offset, nbytes
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: src, dst
      type(*), dimension(*), intent(in) :: src
      type(*), dimension(*), intent(in) :: dst
    end subroutine

    subroutine bsphpput(pid, src, dst, offset, nbytes) bind(C, name="bsp_hpput")
      import :: c_int
      integer(c_int), value, intent(in) :: pid, offset, nbytes
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: src, dst
      type(*), dimension(*), intent(in) :: src
      type(*), dimension(*), intent(in) :: dst
    end subroutine

    subroutine bspget(pid, src, offset, dst, nbytes) bind(C, name="bsp_get")
      import :: c_int
      integer(c_int), value, intent(in) :: pid, offset, nbytes
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: src, dst
      type(*), dimension(*), intent(in) :: src
      type(*), dimension(*), intent(inout) :: dst
    end subroutine

    subroutine bsphpget(pid, src, offset, dst, nbytes) bind(C, name="bsp_hpget")
      import :: c_int
      integer(c_int), value, intent(in) :: pid, offset, nbytes
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: src, dst
      type(*), dimension(*), intent(in) :: src
      type(*), dimension(*), intent(inout) :: dst
    end subroutine

    subroutine bspsettagsize(tagsz) bind(C, name="bsp_set_tagsize")
      import :: c_int
      integer(c_int), intent(inout) :: tagsz
    end subroutine

    subroutine bspsend(pid, tag, payload, nbytes) bind(C, name="bsp_send")
      import :: c_int
      integer(c_int), value, intent(in) :: pid, nbytes
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: tag, payload
      type(*), dimension(*), intent(in) :: tag
      type(*), dimension(*), intent(in) :: payload
    end subroutine

    subroutine bspqsize(nmessages, accum_nbytes) bind(C, name="bsp_qsize")
      import :: c_int
      integer(c_int), intent(out) :: nmessages, accum_nbytes
    end subroutine

    subroutine bspgettag(status, tag) bind(C, name="bsp_get_tag")
      import :: c_int
      integer(c_int), intent(out) :: status
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: tag
      type(*), dimension(*), intent(inout) :: tag
    end subroutine

    subroutine bspmove(payload, reception_nbytes) bind(C, name="bsp_move")
      import :: c_int
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: payload
      type(*), dimension(*), intent(inout) :: payload
      integer(c_int), value, intent(in) :: reception_nbytes
    end subroutine

    ! The addresses of the first message's tag and payload (use c_f_pointer to read them) and
    ! the payload length, or -1 if the queue is empty.
    integer(c_int) function bsphpmove(tag_ptr, payload_ptr) bind(C, name="bsp_hpmove")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: tag_ptr, payload_ptr
    end function
  end interface

  interface
    subroutine c_bsp_init(spmd, argc, argv) bind(C, name="bsp_init")
      import :: c_funptr, c_int, c_ptr
      type(c_funptr), value :: spmd
      integer(c_int), value :: argc
      type(c_ptr), value :: argv
    end subroutine

    subroutine c_abort_message(message) bind(C, name="bspc_abort_message")
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: message
    end subroutine
  end interface

  abstract interface
    subroutine spmd_routine()
    end subroutine
  end interface

  ! The SPMD subroutine given to bspinit (the same for every process).
  procedure(spmd_routine), pointer, save :: the_spmd => null()

contains

  ! bspinit(spmd): the SPMD subroutine, whose first statement is `call bspbegin(p)`, run by the
  ! other processes; called first in the program.
  subroutine bspinit(spmd)
    procedure(spmd_routine) :: spmd
    the_spmd => spmd
    call c_bsp_init(c_funloc(run_spmd), 0_c_int, c_null_ptr)
  end subroutine

  subroutine run_spmd() bind(C)
    call the_spmd()
  end subroutine

  ! bspabort(message): stops every process with the message; the program exits with status 1.
  subroutine bspabort(message)
    character(len=*), intent(in) :: message
    call c_abort_message(trim(message) // c_null_char)
  end subroutine
end module bsp
