//! The `seeds` suite: the seeds' worked examples (the core's `testkit::EXAMPLES`, numbers from
//! the documents or derived by hand from them), in `f64`, `f32` and Q16.16 fixed point, and
//! micrograd's README expression in `f64`; each also written with `stmt!` (each expression one
//! statement on a tape), against the same numbers.

use autograd_core::testkit::{Example, Seed, EXAMPLES, MICROGRAD};
use autograd_core::{Function, Number, Tolerance, Q16};
use autograd_macros::stmt;

use super::judge::{gradient_case, CheckScalar, Reference};
use super::{Case, Suite};

/// A case with a hand-derived (or the seed documents') value and gradient: reverse and forward
/// mode must match it within the example's tolerance (absolute, the documents' printed
/// precision) plus the scalar type's rounding, and reverse mode must match finite differences.
/// Never skipped.
fn reference_case<S: CheckScalar>(example: &'static Example) -> Case {
    reference_case_of::<S, _>(example, example.function, "")
}

/// [`reference_case`] of `f`, another writing of the example's function (named `how`).
fn reference_case_of<S: CheckScalar, F: Function + Send + Sync + 'static>(
    example: &'static Example,
    f: F,
    how: &str,
) -> Case {
    let name = format!("{}{how} {}", example.name, S::NAME);
    Case {
        suite: Suite::Seeds,
        name: name.clone(),
        run: Box::new(move || {
            let reference = Reference {
                label: "hand-derived",
                value: example.value,
                gradient: example.gradient.to_vec(),
                tolerance: Some(Tolerance::new(
                    example.tolerance.max(S::ABS_FLOOR),
                    S::between().rtol,
                )),
                never_skip: true,
            };
            gradient_case::<S, _>(&f, example.x, f64::INFINITY, Some(&reference), &|| {
                name.clone()
            })
        }),
    }
}

pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for example in &EXAMPLES {
        cases.push(reference_case::<f64>(example));
        cases.push(reference_case::<f32>(example));
        cases.push(reference_case::<Q16>(example));
    }
    cases.push(reference_case::<f64>(&MICROGRAD));
    for example in &EXAMPLES {
        let f = Statements(example.function);
        cases.push(reference_case_of::<f64, _>(example, f, ", stmt!"));
        cases.push(reference_case_of::<f32, _>(example, f, ", stmt!"));
        cases.push(reference_case_of::<Q16, _>(example, f, ", stmt!"));
    }
    cases.push(reference_case_of::<f64, _>(
        &MICROGRAD,
        Statements(MICROGRAD.function),
        ", stmt!",
    ));
    cases
}

/// A seed's function with each expression written as one statement (`stmt!`): the match has
/// no wildcard, so a seed added to the testkit fails to compile here until it is written.
#[derive(Clone, Copy, Debug)]
struct Statements(Seed);

impl Function for Statements {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        match self.0 {
            Seed::ReluOfProduct => stmt!((x[0] * x[1] + T::one()).relu()),
            Seed::ReluAbc => stmt!((x[0] * x[1] + x[2]).relu()),
            Seed::Linear => stmt!(x[0] * x[1] + x[2]),
            Seed::SinOfSquare => stmt!(x[0].powi(2).sin()),
            Seed::Cube => stmt!(x[0].powi(3)),
            Seed::Tanh => stmt!(x[0].tanh()),
            Seed::Cubic => stmt!(x[0].powi(3) - x[0] * 2.0 + T::one()),
            Seed::TanhPoly => stmt!((x[0].powi(3) + x[0] * 2.0 + T::one()).tanh()),
            Seed::Neuron => stmt!((x[0] * x[1] + x[2] * x[3] + x[4]).relu()),
            Seed::Micrograd => micrograd(x[0], x[1]),
        }
    }
}

/// micrograd's README expression, each line one statement.
fn micrograd<T: Number>(a: T, b: T) -> T {
    let mut c = stmt!(a + b);
    let mut d = stmt!(a * b + b.powi(3));
    c = stmt!(c + (c + 1.0));
    c = stmt!(c + (1.0 + c + (-a)));
    d = stmt!(d + (d * 2.0 + (b + a).relu()));
    d = stmt!(d + (3.0 * d + (b - a).relu()));
    let e = stmt!(c - d);
    let f = stmt!(e.powi(2));
    let g = stmt!(f / 2.0);
    stmt!(g + 10.0 / f)
}
