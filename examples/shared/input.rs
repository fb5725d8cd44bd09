//! Reading a program's parameters the way BSPedupack's programs do: process 0 asks for them on
//! the standard input before the processes start (in a `#[bsp::program(set_up = ..)]`
//! function). Shared by the book examples that read P; not an example of its own.

use std::io::{IsTerminal, Read, Write};

/// The words of the standard input: on a terminal, one line per prompt (printed on stderr);
/// otherwise all of it (a closed or empty input has none).
pub fn words(prompts: &[&str]) -> Vec<String> {
    let mut stdin = std::io::stdin();
    let mut text = String::new();
    if stdin.is_terminal() {
        for prompt in prompts {
            eprint!("{prompt} (empty for the default) ");
            let _ = std::io::stderr().flush();
            stdin.read_line(&mut text).expect("cannot read standard input");
            text.push(' ');
        }
    } else {
        let _ = stdin.read_to_string(&mut text);
    }
    text.split_whitespace().map(str::to_string).collect()
}

/// `word` as a number of at least `min`, or `default` if there is none; a word that is not one
/// stops the program with a message naming `program` and `what` was expected.
pub fn number(program: &str, word: Option<&String>, default: usize, what: &str, min: usize) -> usize {
    match word.map(|w| (w, w.parse::<usize>())) {
        None => default,
        Some((_, Ok(x))) if x >= min => x,
        Some((w, _)) => panic!("{program}: expected {what}, an integer of at least {min}; found `{w}`"),
    }
}

/// The number of processes when the input does not give it: `BSP_NPROCS`, else one per core,
/// or under `mpirun` one per rank (what a launch without a count would run).
pub fn default_procs(program: &str) -> usize {
    bsp::Launch::new().nprocs().unwrap_or_else(|e| panic!("{program}: {e}"))
}
