//! What `gradcheck` finds of the sweeps themselves, beyond the gradients the judge compares: a
//! second sweep over one recording that differs from the first, a sweep from `0 · f` or a
//! forward pass with a zero tangent that gives a nonzero derivative.

use autograd_core::GradcheckReport;

/// The promises of `gradcheck`'s sweeps that `report` finds broken, joined into one line, or
/// `None`. A zero seed or tangent gives an exactly zero derivative only where every partial
/// that meets it is finite (`0 · inf` is NaN), which a finite gradient in that mode shows, so
/// those two are judged only there.
pub fn broken_sweeps(report: &GradcheckReport, rev: &[f64], fwd: &[f64]) -> Option<String> {
    let finite = |g: &[f64]| g.iter().all(|v| v.is_finite());
    let broken: Vec<&str> = [
        (
            !report.backward_twice_identical,
            "a second backward sweep over one recording differs from the first",
        ),
        (
            finite(rev) && !report.zero_seed_gives_zero,
            "a backward sweep from 0 · f gives a nonzero gradient",
        ),
        (
            finite(fwd) && !report.zero_tangent_gives_zero,
            "forward mode with a zero tangent gives a nonzero derivative",
        ),
    ]
    .into_iter()
    .filter_map(|(broken, what)| broken.then_some(what))
    .collect();
    (!broken.is_empty()).then(|| broken.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use autograd_core::{gradcheck_with, Function, Number, Tape, Tolerance};

    #[test]
    fn each_broken_sweep_is_named_and_a_zero_seed_or_tangent_only_where_its_gradient_is_finite() {
        struct Square;
        impl Function for Square {
            fn eval<T: Number>(&self, x: &[T]) -> T {
                x[0].square()
            }
        }
        let mut tape = Tape::<f64, 16>::new();
        let t = Tolerance::between_modes::<f64>();
        let clean = gradcheck_with(&Square, &mut tape, &[3.0], t, t).unwrap();
        assert_eq!(broken_sweeps(&clean, &[6.0], &[6.0]), None);
        let all = GradcheckReport {
            backward_twice_identical: false,
            zero_seed_gives_zero: false,
            zero_tangent_gives_zero: false,
            ..clean
        };
        let named = broken_sweeps(&all, &[6.0], &[6.0]).unwrap();
        assert_eq!(named.split("; ").count(), 3, "{named}");
        assert!(named.contains("second backward sweep") && named.contains("0 · f"));
        assert!(named.contains("zero tangent"));
        // 0 · inf is NaN: where a mode's gradient is not finite its zero check says nothing.
        let twice = broken_sweeps(&all, &[f64::INFINITY], &[f64::NAN]).unwrap();
        assert!(
            !twice.contains("0 · f") && !twice.contains("zero tangent"),
            "{twice}"
        );
        assert!(twice.contains("second backward sweep"));
        let seed = GradcheckReport {
            backward_twice_identical: true,
            ..all
        };
        assert!(broken_sweeps(&seed, &[6.0], &[f64::INFINITY])
            .unwrap()
            .contains("0 · f"));
        assert_eq!(broken_sweeps(&seed, &[f64::NAN], &[f64::INFINITY]), None);
    }
}
