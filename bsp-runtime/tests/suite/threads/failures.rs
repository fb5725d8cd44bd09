//! Failures that only the threads engine can express: handles carried from one run to another
//! or shared between processes through memory, and process counts taken from the environment.
//! (The failure cases of every engine are the tables of `failures.rs` and the other subjects.)

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use crate::runner::{assert_mentions, run_err, run_ok, within};
use bsp_runtime::{Error, Reg, Remote};

/// Asserts that the run failed on process `pid` with a misuse (not an abort).
#[track_caller]
fn assert_misuse_on(err: &Error, pid: usize) {
    assert_eq!(err.pid(), Some(pid), "failed on the wrong process: {err}");
    assert!(!err.is_abort(), "a misuse is not an abort: {err}");
}

thread_local! {
    static STASH: RefCell<Option<Reg<u32>>> = const { RefCell::new(None) };
}

/// A registration handle of an earlier run, used in a later run on the same thread.
#[test]
fn a_registration_of_another_run_is_reported_at_the_call() {
    let err = within("two runs", || {
        bsp_runtime::run(1, |ctx| {
            let x = ctx.register([1u32]);
            STASH.with(|s| *s.borrow_mut() = Some(x));
        })
        .unwrap();
        bsp_runtime::run(2, |ctx| {
            if ctx.pid() == 0 {
                let x = STASH.with(|s| s.borrow_mut().take()).expect("stashed by the first run");
                ctx.put(1, &5u32, &x, 0);
            }
            ctx.sync();
        })
        .unwrap_err()
    });
    assert_misuse_on(&err, 0);
    assert_mentions(&err, &["put", "registration #1", "another run"]);
}

/// A `Remote` name of an earlier run, used in a later run. A `Remote` borrows its `Reg`, so only
/// a leaked handle's name can leave the run.
#[test]
fn a_remote_name_of_another_run_is_reported_at_the_call() {
    let names = run_ok(2, |ctx| {
        let x: &'static Reg<u32> = Box::leak(Box::new(ctx.register([1u32])));
        x.remote()
    });
    let err = run_err(2, move |ctx| {
        let _x = ctx.register([1u32]);
        let mut v = 0;
        ctx.superstep(|s| s.get(0, names[s.pid()], 0, &mut v));
    });
    assert_mentions(&err, &["get", "registration #1", "another run"]);
}

/// A `Remote` name is this process's: another process of the same run may not use it. (Only a
/// leaked handle's name can be handed to another process.)
#[test]
fn a_remote_name_of_another_process_is_reported_at_the_call() {
    let shared: Arc<Mutex<Option<Remote<'static, u32>>>> = Arc::new(Mutex::new(None));
    let err = run_err(2, move |ctx| {
        let x: &'static Reg<u32> = Box::leak(Box::new(ctx.register([1u32])));
        if ctx.pid() == 0 {
            *shared.lock().unwrap() = Some(x.remote());
        }
        ctx.sync();
        if ctx.pid() == 1 {
            let name = shared.lock().unwrap().expect("stored by process 0");
            ctx.put(0, &5u32, name, 0);
        }
        ctx.sync();
    });
    assert_misuse_on(&err, 1);
    assert_mentions(&err, &["put", "registration #1", "belongs to process 0"]);
}
