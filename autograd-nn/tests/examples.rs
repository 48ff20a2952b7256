//! The examples' claims, checked by running the examples' own training code with their fixed
//! seeds (each example file is included as a module).

#[allow(dead_code)]
#[path = "../examples/xor.rs"]
mod xor;

#[allow(dead_code)]
#[path = "../examples/moons.rs"]
mod moons;

#[allow(dead_code)]
#[path = "../examples/spiral.rs"]
mod spiral;

#[test]
fn xor_gets_every_sign_right_with_the_seed_lessons_setup() {
    let run = xor::train(42, false).unwrap();
    // Seed 42: the signs are all right from step 63, and the loss is below 0.25 after 138
    // updates (the lesson's 100 steps are not quite enough for a clear margin).
    assert_eq!(run.first_all_right, Some(63));
    assert_eq!(run.updates, 138);
    assert!(run.loss <= 0.25);
    for (pred, target) in run.predictions.iter().zip([-1.0, 1.0, 1.0, -1.0]) {
        assert!(pred * target > 0.5, "{pred} vs {target}");
    }
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
fn spiral_reaches_95_percent_with_softmax_and_adam() {
    let (stats, steps) = spiral::train(7, false).unwrap();
    assert!(stats.accuracy() >= 0.99, "{}", stats.accuracy());
    assert!(steps < 200, "{steps} steps");
}
