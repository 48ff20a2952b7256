//! What every criterion run of this project shares: the quick/full settings and the clock. Used
//! by `benches/autograd.rs` and by the nightly-only `enzyme/` crate (`cargo xtask bench
//! --enzyme`), so both time the same way.
//!
//! Environment: `AUTOGRAD_BENCH_QUICK=1` selects short measurements ([`quick`]);
//! `AUTOGRAD_BENCH_CLOCK=wall` times single-threaded benchmarks by the wall clock instead of the
//! thread's CPU time ([`wall_clock`]).
//!
//! ```
//! // A full run unless the environment asks for a quick one.
//! let c = autograd_bench::harness::config();
//! # let _ = c;
//! ```

use std::time::Duration;

use criterion::Criterion;

/// `true` if `AUTOGRAD_BENCH_QUICK` asks for short measurements.
pub fn quick() -> bool {
    std::env::var_os("AUTOGRAD_BENCH_QUICK").is_some_and(|v| v != "0")
}

/// `true` if `AUTOGRAD_BENCH_CLOCK=wall`, or where the thread's CPU clock is not available.
pub fn wall_clock() -> bool {
    !cfg!(target_os = "linux") || std::env::var("AUTOGRAD_BENCH_CLOCK").is_ok_and(|v| v == "wall")
}

/// Criterion's settings for a quick or a full run.
pub fn config() -> Criterion {
    let c = Criterion::default();
    if quick() {
        c.warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300))
            .sample_size(10)
            .nresamples(2_000)
            .without_plots()
    } else {
        // About 15 minutes for the whole suite on a 2-core machine, criterion's plots included.
        c.warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1))
            .sample_size(20)
            .nresamples(10_000)
    }
}

/// Per-thread CPU time as a criterion measurement: time the thread spends descheduled on a
/// shared, loaded machine does not count; on an idle machine it agrees with the wall clock.
#[cfg(target_os = "linux")]
pub mod thread_cpu {
    use std::time::Duration;

    use criterion::measurement::{Measurement, ValueFormatter};
    use criterion::Throughput;

    /// CPU time consumed by the calling thread.
    pub struct ThreadCpuTime;

    fn now() -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel
        // supports since Linux 2.6.12. (Benchmark code only: the engine's crates allow no
        // `unsafe` but the core's `Tape::boxed`.)
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    impl Measurement for ThreadCpuTime {
        type Intermediate = Duration;
        type Value = Duration;
        fn start(&self) -> Duration {
            now()
        }
        fn end(&self, start: Duration) -> Duration {
            now().saturating_sub(start)
        }
        fn add(&self, a: &Duration, b: &Duration) -> Duration {
            *a + *b
        }
        fn zero(&self) -> Duration {
            Duration::ZERO
        }
        fn to_f64(&self, v: &Duration) -> f64 {
            v.as_nanos() as f64
        }
        fn formatter(&self) -> &dyn ValueFormatter {
            &Nanoseconds
        }
    }

    /// Formats nanoseconds like criterion's wall-clock formatter.
    struct Nanoseconds;

    impl ValueFormatter for Nanoseconds {
        fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
            let (factor, unit) = match ns {
                x if x < 1e3 => (1.0, "ns"),
                x if x < 1e6 => (1e-3, "µs"),
                x if x < 1e9 => (1e-6, "ms"),
                _ => (1e-9, "s"),
            };
            values.iter_mut().for_each(|v| *v *= factor);
            unit
        }
        fn scale_throughputs(
            &self,
            ns: f64,
            throughput: &Throughput,
            values: &mut [f64],
        ) -> &'static str {
            let per_iter = match *throughput {
                Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => {
                    n as f64
                }
            };
            let _ = ns;
            values.iter_mut().for_each(|v| *v = per_iter * 1e3 / *v);
            match *throughput {
                Throughput::Elements(_) => "Melem/s (cpu)",
                _ => "MB/s (cpu)",
            }
        }
        fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
            "ns"
        }
    }
}
