//! The project's task runner: `cargo xtask <task>`.

fn main() {
    println!("cargo xtask: no tasks yet");
}
