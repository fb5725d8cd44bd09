//! What only a threads run shows of the errors: the kind of each failure (`Error::kind`), and
//! GP distribution errors as standard errors.

use bsp_runtime::gp::Distribution;
use bsp_runtime::{Error, ErrorKind};

use crate::runner::within;

/// Runs `f` on `p` processes, guarded against hangs, and returns the run's error.
fn failing<F>(p: usize, f: F) -> Error
where
    F: Fn(&mut bsp_runtime::Ctx) + Sync + Send + 'static,
{
    within(&format!("run on {p} processes"), move || bsp_runtime::run(p, f)).expect_err("the run must fail")
}

#[test]
fn every_kind_of_failure_has_its_error_kind() {
    let launch = failing(0, |_| ());
    assert_eq!((launch.kind(), launch.pid()), (ErrorKind::Launch, None));

    let abort = failing(2, |ctx| {
        if ctx.pid() == 1 {
            ctx.abort("enough");
        }
        ctx.sync();
    });
    assert_eq!((abort.kind(), abort.pid()), (ErrorKind::Abort, Some(1)));
    assert!(abort.is_abort());

    let panic = failing(2, |ctx| {
        if ctx.pid() == 0 {
            panic!("a bug");
        }
        ctx.sync();
    });
    assert_eq!((panic.kind(), panic.pid()), (ErrorKind::Panic, Some(0)));
    assert!(!panic.is_abort());

    let misuse = failing(2, |ctx| ctx.send(5, &(), &[1u8]));
    assert_eq!(misuse.kind(), ErrorKind::Panic, "{misuse}");

    let collective = failing(2, |ctx| {
        ctx.set_tagsize(ctx.pid());
        ctx.sync();
    });
    assert_eq!(collective.kind(), ErrorKind::Collective, "{collective}");
}

#[test]
fn distribution_errors_are_standard_errors() {
    let err: Box<dyn std::error::Error + Send + Sync> =
        Distribution::regular(&[4, 0], 2, None).expect_err("extent 0").into();
    assert!(err.to_string().contains("axis 1 has extent 0"), "{err}");
    let dist = Distribution::irregular(&[4, 4], 2, &[0, 0, 2], &[1, 2]).expect("valid");
    let err = dist.local_index(&[4, 0]).expect_err("row 4 is out of range");
    assert!(err.message().contains("[4, 0]") && err.message().contains("[4, 4]"), "{err}");
}
