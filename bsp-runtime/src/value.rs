//! The element types that may cross process boundaries, and the shapes they come in.
//!
//! Registered memory and messages are moved as raw bytes (between threads today, between machines
//! with the MPI engine), so every element type must be *plain old data*: any bit pattern is a
//! valid value, there are no pointers, no padding, and no interior mutability. That is exactly
//! [`bytemuck::Pod`]; [`Value`] restates it in our vocabulary so that a wrong type gets a message
//! that speaks BSP.

/// A type whose values can be registered, put, got and sent: plain old data.
///
/// Implemented for every [`bytemuck::Pod`] type that is also `Send + Sync` (all the primitive
/// numbers, arrays of them, and `#[derive(Pod, Zeroable)]` structs).
///
/// ```
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Particle { x: f64, v: f64 }
///
/// fn takes_value<T: bsp_runtime::Value>() {}
/// takes_value::<Particle>();
/// takes_value::<[u32; 4]>();
/// ```
///
/// A zero-sized type such as `()` is a `Value` (it is the tag type of messages without a tag),
/// but it cannot be registered: registered memory holds data, and `register` of a zero-sized
/// element type is refused when the program is built.
///
/// ```compile_fail,E0080
/// bsp_runtime::run(1, |ctx| {
///     let _units = ctx.register([(); 4]); // error: the element type has size 0
/// });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be communicated: it is not plain old data",
    label = "`{Self}` is not plain old data",
    note = "registered variables and messages hold plain old data (`bytemuck::Pod`): numbers, arrays of them, or `#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)] #[repr(C)]` structs",
    note = "types with pointers (`Vec`, `String`, `Box`, references) cannot cross processes: send their contents instead"
)]
pub trait Value: bytemuck::Pod + Send + Sync {}

/// The compile-time check that `T` may be the element type of a registration: it must have a
/// size. A registration of a zero-sized type (`()`, `[u8; 0]`, an empty struct) would hold no
/// bytes, so offsets and extents, which the runtime keeps in bytes, would mean nothing; it is
/// refused when the program is built, not half-supported. (`()` stays a `Value`: it is the tag
/// type of messages without a tag.)
///
/// Referencing [`NotZeroSized::CHECK`] in a generic function makes every instantiation with a
/// zero-sized `T` a compile error (when the code is built, as `cargo build` and `cargo test`
/// do; `cargo check` stops before it).
pub(crate) struct NotZeroSized<T>(std::marker::PhantomData<T>);

impl<T> NotZeroSized<T> {
    /// Fails to evaluate, with the message below, if `T` has size 0.
    pub(crate) const CHECK: () = assert!(
        std::mem::size_of::<T>() != 0,
        "a registration's element type has size 0 (like `()`): registered memory must hold data, so register a type with a size, such as `u8`"
    );
}

// `do_not_recommend`: a type that is not `Value` gets our message, not a list of `Pod` types.
#[diagnostic::do_not_recommend]
impl<T: bytemuck::Pod + Send + Sync> Value for T {}

/// Something that reads as a slice of `T`: a single `T`, `[T]`, `[T; N]` or `Vec<T>`.
///
/// Lets `put`, `send` and `hpput` take `&x` for one value and `&xs[..]` for many alike.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value or a slice of `{T}`",
    label = "expected `&{T}`, `&[{T}]`, `&[{T}; N]` or `&Vec<{T}>`"
)]
pub trait Elems<T: Value> {
    /// The elements as a slice.
    fn elems(&self) -> &[T];
}

/// Something that writes as a slice of `T`: a single `T`, `[T]`, `[T; N]` or `Vec<T>`.
///
/// The destination of `get` and `hpget`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value or a slice of `{T}`",
    label = "expected `&mut {T}`, `&mut [{T}]`, `&mut [{T}; N]` or `&mut Vec<{T}>`"
)]
pub trait ElemsMut<T: Value> {
    /// The elements as a mutable slice.
    fn elems_mut(&mut self) -> &mut [T];
}

impl<T: Value> Elems<T> for T {
    fn elems(&self) -> &[T] {
        std::slice::from_ref(self)
    }
}
impl<T: Value> Elems<T> for [T] {
    fn elems(&self) -> &[T] {
        self
    }
}
impl<T: Value, const N: usize> Elems<T> for [T; N] {
    fn elems(&self) -> &[T] {
        self
    }
}
impl<T: Value> Elems<T> for Vec<T> {
    fn elems(&self) -> &[T] {
        self
    }
}
impl<T: Value> ElemsMut<T> for T {
    fn elems_mut(&mut self) -> &mut [T] {
        std::slice::from_mut(self)
    }
}
impl<T: Value> ElemsMut<T> for [T] {
    fn elems_mut(&mut self) -> &mut [T] {
        self
    }
}
impl<T: Value, const N: usize> ElemsMut<T> for [T; N] {
    fn elems_mut(&mut self) -> &mut [T] {
        self
    }
}
impl<T: Value> ElemsMut<T> for Vec<T> {
    fn elems_mut(&mut self) -> &mut [T] {
        self
    }
}
