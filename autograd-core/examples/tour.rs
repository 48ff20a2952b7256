//! The seed lesson's first example, `y = relu(x1 * x2 + 1)`, in this API: values, gradients and
//! the recorded graph as Graphviz DOT.
//!
//! Run with `cargo run -p autograd-core --example tour`.

use autograd_core::{Tape, TapeError};

fn main() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let x1 = tape.var(2.0);
    let x2 = tape.var(3.0);
    let y = (x1 * x2 + 1.0).relu();

    let grads = tape.backward(y)?;
    println!("y      = {}", y.value());
    println!("dy/dx1 = {}   (= x2)", grads.wrt(x1));
    println!("dy/dx2 = {}   (= x1)", grads.wrt(x2));
    println!(
        "{} slots of {} bytes each in use on a tape of capacity {}",
        tape.len(),
        core::mem::size_of::<autograd_core::Slot<f64>>(),
        tape.capacity()
    );

    let mut dot = String::new();
    tape.write_dot(&mut dot)
        .expect("writing to a String cannot fail");
    println!("\n{dot}");
    Ok(())
}
