//! The examples' claims, checked by running the examples' own training code with their fixed
//! seeds (each example file is included as a module).

#[allow(dead_code)]
#[path = "../examples/xor.rs"]
mod xor;

#[allow(dead_code)]
#[path = "../examples/moons.rs"]
mod moons;

// xor and spiral each declare the examples' shared `common` module.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../examples/spiral.rs"]
mod spiral;

#[test]
fn xor_gets_every_sign_right_with_the_seed_lessons_setup() {
    let run = xor::train(42, false).unwrap();
    // Training stops at loss <= 0.25 within the step budget; a squared error of at most 0.25
    // summed over the four points puts every prediction within 0.5 of its target, so every sign
    // is right, and it was right no later than that step.
    assert!(run.loss <= 0.25);
    assert!(
        run.updates < xor::MAX_STEPS,
        "did not converge in {} steps",
        run.updates
    );
    let first = run
        .first_all_right
        .expect("the signs were right at some step");
    assert!(first <= run.updates, "{first} > {}", run.updates);
    for (pred, target) in run.predictions.iter().zip([-1.0, 1.0, 1.0, -1.0]) {
        assert!(pred * target > 0.5, "{pred} vs {target}");
    }
}

/// A regression pin, not a derived fact: with seed 42 a run on this code gave all signs right
/// from step 63 and loss <= 0.25 after 138 updates (the README quotes them). A change here
/// means the arithmetic or the initialisation changed: look why, then update both.
#[test]
fn xor_seed_42_regression_pin_63_and_138_steps() {
    let run = xor::train(42, false).unwrap();
    assert_eq!((run.first_all_right, run.updates), (Some(63), 138));
}

#[test]
fn moons_reach_full_training_accuracy_in_micrograds_100_steps_on_any_tape_size() {
    let run = moons::train(1337, false, false).unwrap();
    assert_eq!(run.updates, 100);
    assert_eq!(run.stats.correct, 100);
    assert!(run.stats.loss < 0.03, "{}", run.stats.loss);
    assert_eq!(run.losses.len(), 100);
    assert!(run.losses[0] > 1.0 && run.losses[99] < 0.03);

    // The SVG is written and holds the plot's parts.
    let path = std::env::temp_dir().join(format!("autograd-nn-moons-{}.svg", std::process::id()));
    moons::draw(path.to_str().unwrap(), &run.params, &run.data, &run.losses).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("decision boundary"));
    assert!(svg.matches("<circle").count() >= 100);
    assert!(svg.contains("<polyline"));

    // The bounded-memory mode (`--small-tape`): a tape for one sample, one backward sweep per
    // sample, gradients summed. Same data, same initialisation, the same gradient up to
    // rounding, so the same network.
    let small = moons::train(1337, false, true).unwrap();
    assert_eq!(small.stats.correct, 100);
    assert!((small.stats.loss - run.stats.loss).abs() < 1e-9);
    for (a, b) in small.params.iter().zip(&run.params) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }
}

#[test]
fn spiral_reaches_99_percent_within_200_adam_steps() {
    let (stats, steps) = spiral::train(7, false).unwrap();
    assert!(
        stats.accuracy().is_some_and(|a| a >= 0.99),
        "{:?}",
        stats.accuracy()
    );
    assert!(steps < 200, "{steps} steps");
}
