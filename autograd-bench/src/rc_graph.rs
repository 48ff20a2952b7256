//! For comparison only: micrograd's design in Rust. Every value is a heap node behind
//! `Rc<RefCell<..>>` holding its children and a boxed closure that pushes its gradient to them;
//! backward builds a topological order by recursive depth-first search with a visited set, then
//! calls the closures in reverse. This is what the tape replaces.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use crate::moons::{HIDDEN, SIZES};

type Backward = Box<dyn Fn(f64)>;

struct Node {
    data: f64,
    grad: f64,
    prev: Vec<Value>,
    /// Receives this node's gradient and adds the chain-rule terms to the children's.
    backward: Option<Backward>,
}

/// A value in the graph (cheap to clone: a reference count).
#[derive(Clone)]
pub struct Value(Rc<RefCell<Node>>);

impl Value {
    /// A leaf.
    pub fn new(data: f64) -> Self {
        Value::with(data, Vec::new(), None)
    }

    fn with(data: f64, prev: Vec<Value>, backward: Option<Backward>) -> Self {
        Value(Rc::new(RefCell::new(Node {
            data,
            grad: 0.0,
            prev,
            backward,
        })))
    }

    /// The value.
    pub fn data(&self) -> f64 {
        self.0.borrow().data
    }

    /// The accumulated gradient.
    pub fn grad(&self) -> f64 {
        self.0.borrow().grad
    }

    /// Sets the gradient to 0 (micrograd's `zero_grad`).
    pub fn zero_grad(&self) {
        self.0.borrow_mut().grad = 0.0;
    }

    /// Adds to the value (an optimizer step on a leaf).
    pub fn add_data(&self, d: f64) {
        self.0.borrow_mut().data += d;
    }

    /// `self + other`
    pub fn add(&self, other: &Value) -> Value {
        let (a, b) = (self.clone(), other.clone());
        let out = self.data() + other.data();
        Value::with(
            out,
            vec![self.clone(), other.clone()],
            Some(Box::new(move |g| {
                a.0.borrow_mut().grad += g;
                b.0.borrow_mut().grad += g;
            })),
        )
    }

    /// `self * other`
    pub fn mul(&self, other: &Value) -> Value {
        let (a, b) = (self.clone(), other.clone());
        let (ad, bd) = (self.data(), other.data());
        Value::with(
            ad * bd,
            vec![self.clone(), other.clone()],
            Some(Box::new(move |g| {
                a.0.borrow_mut().grad += bd * g;
                b.0.borrow_mut().grad += ad * g;
            })),
        )
    }

    /// `self + c`, the constant wrapped in a node as micrograd does.
    pub fn add_const(&self, c: f64) -> Value {
        self.add(&Value::new(c))
    }

    /// `self * c`, the constant wrapped in a node as micrograd does.
    pub fn mul_const(&self, c: f64) -> Value {
        self.mul(&Value::new(c))
    }

    /// `self - other` as `self + (-1 * other)` (micrograd).
    pub fn sub(&self, other: &Value) -> Value {
        self.add(&other.mul_const(-1.0))
    }

    /// `self^k` for a constant `k`.
    pub fn pow(&self, k: f64) -> Value {
        let a = self.clone();
        let x = self.data();
        Value::with(
            x.powf(k),
            vec![self.clone()],
            Some(Box::new(move |g| {
                a.0.borrow_mut().grad += k * x.powf(k - 1.0) * g;
            })),
        )
    }

    /// `max(self, 0)`
    pub fn relu(&self) -> Value {
        let a = self.clone();
        let x = self.data();
        let out = if x < 0.0 { 0.0 } else { x };
        Value::with(
            out,
            vec![self.clone()],
            Some(Box::new(move |g| {
                a.0.borrow_mut().grad += if out > 0.0 { g } else { 0.0 };
            })),
        )
    }

    /// Gradients of `self` with respect to every node it depends on, accumulated into their
    /// `grad` (call [`zero_grad`](Self::zero_grad) on leaves first, as in micrograd).
    pub fn backward(&self) {
        fn build(v: &Value, visited: &mut HashSet<*const RefCell<Node>>, topo: &mut Vec<Value>) {
            if visited.insert(Rc::as_ptr(&v.0)) {
                for child in &v.0.borrow().prev {
                    build(child, visited, topo);
                }
                topo.push(v.clone());
            }
        }
        let mut topo = Vec::new();
        let mut visited = HashSet::new();
        build(self, &mut visited, &mut topo);
        self.0.borrow_mut().grad = 1.0;
        for v in topo.iter().rev() {
            let node = v.0.borrow();
            if let Some(f) = &node.backward {
                f(node.grad);
            }
        }
    }
}

/// Heap bytes one binary node (`a * b`) asks for, allocator overhead excluded: the reference
/// counted cell, its list of two children and its boxed closure (two captured handles and two
/// captured values). A tape node is 16 or 24 bytes.
pub fn heap_bytes_per_binary_node() -> usize {
    use std::mem::size_of;
    let rc_box = 2 * size_of::<usize>() + size_of::<RefCell<Node>>();
    let children = 2 * size_of::<Value>();
    let closure = 2 * size_of::<Value>() + 2 * size_of::<f64>();
    rc_box + children + closure
}

/// Rosenbrock on the graph, as micrograd code would write it.
pub fn rosenbrock(x: &[Value]) -> Value {
    let mut sum = Value::new(0.0);
    for w in x.windows(2) {
        let d = w[1].sub(&w[0].pow(2.0));
        let e = Value::new(1.0).sub(&w[0]);
        sum = sum.add(&d.pow(2.0).mul_const(100.0)).add(&e.pow(2.0));
    }
    sum
}

fn neuron(p: &[Value], x: &[Value]) -> Value {
    let mut s = p[x.len()].clone();
    for (w, xi) in p.iter().zip(x) {
        s = s.add(&w.mul(xi));
    }
    s
}

/// The moons MLP's loss on the graph (the same network and loss as [`crate::moons::loss`]).
pub fn moons_loss(p: &[Value], inputs: &[[Value; 2]], labels: &[f64]) -> Value {
    let mut data = Value::new(0.0);
    for (x, &y) in inputs.iter().zip(labels) {
        let mut k = 0;
        let mut h1 = Vec::with_capacity(HIDDEN);
        for _ in 0..SIZES[1] {
            h1.push(neuron(&p[k..k + 3], x).relu());
            k += 3;
        }
        let mut h2 = Vec::with_capacity(HIDDEN);
        for _ in 0..SIZES[2] {
            h2.push(neuron(&p[k..k + HIDDEN + 1], &h1).relu());
            k += HIDDEN + 1;
        }
        let score = neuron(&p[k..k + HIDDEN + 1], &h2);
        data = data.add(&score.mul_const(-y).add_const(1.0).relu());
    }
    let data = data.mul_const(1.0 / inputs.len() as f64);
    let mut reg = Value::new(0.0);
    for w in p {
        reg = reg.add(&w.mul(w));
    }
    data.add(&reg.mul_const(crate::moons::ALPHA))
}

/// One micrograd training step: builds the graph, zeroes the parameters' gradients, runs
/// backward, applies SGD and returns the loss.
pub fn moons_step(params: &[Value], inputs: &[[Value; 2]], labels: &[f64], lr: f64) -> f64 {
    let loss = moons_loss(params, inputs, labels);
    for p in params {
        p.zero_grad();
    }
    loss.backward();
    for p in params {
        let g = p.grad();
        p.add_data(-lr * g);
    }
    loss.data()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::point;
    use crate::modes::reverse_gradient;
    use crate::moons::{data, init_params, tape_loss_gradient, PARAMS};
    use autograd_core::Tape;

    #[test]
    fn the_seed_example_relu_x1_x2_plus_1() {
        let (x1, x2) = (Value::new(2.0), Value::new(3.0));
        let y = x1.mul(&x2).add_const(1.0).relu();
        y.backward();
        assert_eq!((y.data(), x1.grad(), x2.grad()), (7.0, 3.0, 2.0));
    }

    #[test]
    fn rosenbrock_gradient_agrees_with_the_tape() {
        let x = point(9);
        let vals: Vec<Value> = x.iter().map(|&v| Value::new(v)).collect();
        let y = rosenbrock(&vals);
        y.backward();
        let mut tape = Box::new(Tape::<f64, 256>::new());
        let mut g = vec![0.0; 9];
        let y_tape = reverse_gradient(
            &mut tape,
            crate::functions::Function::Rosenbrock,
            &x,
            &mut g,
        )
        .unwrap();
        assert!((y.data() - y_tape).abs() < 1e-12);
        for (v, gt) in vals.iter().zip(&g) {
            assert!((v.grad() - gt).abs() < 1e-12 * (1.0 + gt.abs()));
        }
    }

    #[test]
    fn moons_gradient_agrees_with_the_tape() {
        let moons = data();
        let p = init_params(5);
        let params: Vec<Value> = p.iter().map(|&w| Value::new(w)).collect();
        let inputs: Vec<[Value; 2]> = moons
            .x
            .iter()
            .map(|x| [Value::new(x[0]), Value::new(x[1])])
            .collect();
        let loss = moons_loss(&params, &inputs, &moons.y);
        loss.backward();
        let mut tape = crate::tape_f64();
        let mut g = vec![0.0; PARAMS];
        let l = tape_loss_gradient(&mut tape, &p, &moons, &mut g).unwrap();
        assert!((loss.data() - l).abs() < 1e-12);
        for (v, gt) in params.iter().zip(&g) {
            assert!((v.grad() - gt).abs() < 1e-12, "{} vs {gt}", v.grad());
        }
    }
}
