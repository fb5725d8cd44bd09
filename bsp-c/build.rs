//! Compiles the C part of the library (`csrc/shim.c`: bsp_abort's formatting, leaving the SPMD
//! function at bsp_end), which is linked into `libbspc.a` and `libbspc.so`.

fn main() {
    println!("cargo:rerun-if-changed=csrc/shim.c");
    cc::Build::new().file("csrc/shim.c").warnings(true).extra_warnings(true).compile("bspc_shim");
}
