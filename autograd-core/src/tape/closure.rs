//! [`TapeView::gradient`]: a closure over a fixed-size array of inputs, differentiated in one
//! call, without a [`Function`](crate::Function) impl.

use crate::{Scalar, TapeError, Var};

use super::TapeView;

impl<S: Scalar> TapeView<S> {
    /// The value of `f` at `x` and its gradient, from one recording and one sweep. The inputs
    /// are recorded after whatever the tape holds, and the tape is rewound to where it was
    /// afterwards (also on error), so one tape serves any number of calls.
    ///
    /// ```
    /// use autograd_core::{Number, Tape};
    /// let mut tape = Tape::<f64, 64>::new();
    /// // micrograd's README expression, any closure over `[Var; N]`:
    /// let (y, [da, db]) = tape.gradient([-4.0, 2.0], |[a, b]| {
    ///     let c = a + b;
    ///     let d = a * b + b.powi(3);
    ///     let c = c + c + 1.0;
    ///     let c = c + 1.0 + c + (-a);
    ///     let d = d + d * 2.0 + (b + a).relu();
    ///     let d = d + 3.0 * d + (b - a).relu();
    ///     let e = c - d;
    ///     let f = e.powi(2);
    ///     let g = f / 2.0;
    ///     g + 10.0 / f
    /// })?;
    /// assert!((y - 24.7041).abs() < 1e-4);
    /// assert!((da - 138.8338).abs() < 1e-4 && (db - 645.5773).abs() < 1e-4);
    /// assert!(tape.is_empty());
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    ///
    /// A result that does not depend on the inputs (a constant) has a zero gradient.
    ///
    /// # Errors
    /// The tape's error: it already failed before the call, or `f` does not fit
    /// ([`TapeError::CapacityExceeded`] says how many slots it asked for), or `f` returned a
    /// value from another tape.
    pub fn gradient<const N: usize>(
        &mut self,
        x: [S; N],
        f: impl for<'t> FnOnce([Var<'t, S>; N]) -> Var<'t, S>,
    ) -> Result<(S, [S; N]), TapeError> {
        self.check()?;
        let mark = self.mark();
        let result = self.record_and_sweep(x, f);
        self.rewind(mark);
        result
    }

    fn record_and_sweep<const N: usize>(
        &self,
        x: [S; N],
        f: impl for<'t> FnOnce([Var<'t, S>; N]) -> Var<'t, S>,
    ) -> Result<(S, [S; N]), TapeError> {
        let inputs = x.map(|v| self.var(v));
        let y = f(inputs);
        self.check()?;
        if y.is_constant() {
            return Ok((y.value(), [S::ZERO; N]));
        }
        let grads = self.backward(y)?;
        Ok((y.value(), inputs.map(|v| grads.wrt(v))))
    }
}
