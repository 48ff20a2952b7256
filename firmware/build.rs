//! Picks the memory layout for the target's board and links with cortex-m-rt's `link.x`.
//!
//! Without `-Tlink.x` an ARM binary links without error into an empty ELF (no vector table, no
//! text), so it is passed here, for the binary only.

use std::{env, fs, path::PathBuf};

fn main() {
    let target = env::var("TARGET").unwrap_or_default();
    // thumbv6m runs on the micro:bit (nRF51822: 256 KiB flash, 16 KiB RAM); the M3/M4 boards
    // (lm3s6965evb, mps2-an386) both have at least 256 KiB of flash at 0 and 64 KiB of RAM.
    let (memory, board) = if target.starts_with("thumbv6m") {
        (
            "memory-16k.x",
            "micro:bit, Cortex-M0, soft float, 16 KiB RAM",
        )
    } else if target.starts_with("thumbv7em") && target.ends_with("eabihf") {
        ("memory-64k.x", "mps2-an386, Cortex-M4F, hardware f32")
    } else if target.starts_with("thumbv7m") {
        ("memory-64k.x", "lm3s6965evb, Cortex-M3, soft float")
    } else {
        ("memory-64k.x", "unknown board")
    };
    println!("cargo:rustc-env=FIRMWARE_BOARD={target} ({board})");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy(memory, out.join("memory.x")).expect("copy the memory layout into OUT_DIR");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed={memory}");
    println!("cargo:rerun-if-changed=build.rs");
}
