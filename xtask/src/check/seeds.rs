//! The `seeds` suite: the seeds' worked examples (the core's `testkit::EXAMPLES`, numbers from
//! the documents or derived by hand from them), in `f64`, `f32` and Q16.16 fixed point, and
//! micrograd's README expression in `f64`.

use autograd_core::testkit::{Example, EXAMPLES, MICROGRAD};
use autograd_core::{Tolerance, Q16};

use super::judge::{gradient_case, CheckScalar, Reference};
use super::{Case, Suite};

/// A case with a hand-derived (or the seed documents') value and gradient: reverse and forward
/// mode must match it within the example's tolerance (absolute, the documents' printed
/// precision) plus the scalar type's rounding, and reverse mode must match finite differences.
/// Never skipped.
fn reference_case<S: CheckScalar>(example: &'static Example) -> Case {
    let name = format!("{} {}", example.name, S::NAME);
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
            gradient_case::<S, _>(
                &example.function,
                example.x,
                f64::INFINITY,
                Some(&reference),
                &|| name.clone(),
            )
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
    cases
}
