//! The part files of the MPI engine: each rank's records, one line per superstep of
//! whitespace-separated integers, read back by rank 0.

use std::fmt::Write as _;
use std::time::Duration;

use super::{Mark, Proc, ProcStep};
use crate::observe::stats::{StepStats, Traffic};
use crate::observe::trace::Phase;

/// The numbers of one `Traffic` in a record.
const TRAFFIC_WORDS: usize = 10;

/// Where a record's traffic starts (after step, three times, h and three instants), and where
/// its number of marks is (after the sent, received and local traffic).
const TRAFFIC_AT: usize = 8;
const MARKS_AT: usize = TRAFFIC_AT + 3 * TRAFFIC_WORDS;

fn traffic_words(t: &Traffic) -> [usize; TRAFFIC_WORDS] {
    [
        t.puts,
        t.put_bytes,
        t.gets,
        t.get_bytes,
        t.messages,
        t.message_bytes,
        t.records,
        t.record_bytes,
        t.collectives,
        t.collective_bytes,
    ]
}

fn traffic_from(w: &[u64]) -> Traffic {
    let u = |i: usize| w[i] as usize;
    Traffic {
        puts: u(0),
        put_bytes: u(1),
        gets: u(2),
        get_bytes: u(3),
        messages: u(4),
        message_bytes: u(5),
        records: u(6),
        record_bytes: u(7),
        collectives: u(8),
        collective_bytes: u(9),
    }
}

fn write_step(out: &mut String, kind: char, s: &ProcStep) {
    let st = &s.stats;
    let _ = write!(
        out,
        "{kind} {} {} {} {} {} {} {} {}",
        st.step,
        st.compute.as_nanos(),
        st.wait.as_nanos(),
        st.data.as_nanos(),
        st.h_bytes,
        s.start,
        s.enter,
        s.end
    );
    for t in [&st.sent, &st.received, &st.local] {
        for w in traffic_words(t) {
            let _ = write!(out, " {w}");
        }
    }
    let _ = write!(out, " {}", s.marks.len());
    for m in &s.marks {
        let _ = write!(out, " {} {}", u8::from(m.phase == Phase::Data), m.end);
    }
    out.push('\n');
}

pub(super) fn write_part(p: &Proc) -> String {
    let mut out = format!("bsp-trace-part 2\nP {} {} {}\n", p.pid, p.nprocs, p.wall);
    for s in &p.steps {
        write_step(&mut out, 'S', s);
    }
    write_step(&mut out, 'T', &p.tail);
    out
}

pub(super) fn read_part(text: &str) -> Result<Proc, String> {
    let mut lines = text.lines();
    if lines.next() != Some("bsp-trace-part 2") {
        return Err("not a bsp trace part".to_string());
    }
    let mut proc = None;
    let (mut steps, mut tail) = (Vec::new(), None);
    for line in lines {
        let mut it = line.split_ascii_whitespace();
        let kind = it.next().unwrap_or("");
        let nums: Vec<u64> = it.map(str::parse).collect::<Result<_, _>>().map_err(|e| format!("{e} in {line:?}"))?;
        match kind {
            "P" if nums.len() == 3 => {
                proc = Some((nums[0] as usize, nums[1] as usize, nums[2]));
            }
            "S" | "T" if nums.len() > MARKS_AT => {
                let n = nums[MARKS_AT] as usize;
                if nums.len() != MARKS_AT + 1 + 2 * n {
                    return Err(format!("bad record {line:?}"));
                }
                let d = Duration::from_nanos;
                let step = ProcStep {
                    stats: StepStats {
                        step: nums[0] as usize,
                        compute: d(nums[1]),
                        wait: d(nums[2]),
                        data: d(nums[3]),
                        h_bytes: nums[4] as usize,
                        sent: traffic_from(&nums[TRAFFIC_AT..]),
                        received: traffic_from(&nums[TRAFFIC_AT + TRAFFIC_WORDS..]),
                        local: traffic_from(&nums[TRAFFIC_AT + 2 * TRAFFIC_WORDS..]),
                        // Trace parts do not carry the engine's message counts.
                        engine_messages: 0,
                    },
                    start: nums[5],
                    enter: nums[6],
                    end: nums[7],
                    marks: nums[MARKS_AT + 1..]
                        .chunks_exact(2)
                        .map(|m| Mark { phase: if m[0] == 1 { Phase::Data } else { Phase::Wait }, end: m[1] })
                        .collect(),
                };
                if kind == "S" {
                    steps.push(step);
                } else {
                    tail = Some(step);
                }
            }
            _ => return Err(format!("bad record {line:?}")),
        }
    }
    let (pid, nprocs, wall) = proc.ok_or("no header")?;
    Ok(Proc { pid, nprocs, wall, origin: None, offset: 0, steps, tail: tail.ok_or("no final record")? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::trace::sample;

    #[test]
    fn a_part_file_reads_back_as_written() {
        let p = sample(1);
        let back = read_part(&write_part(&p)).expect("a part reads back");
        assert_eq!(write_part(&back), write_part(&p));
        assert_eq!(back.steps[0].stats, p.steps[0].stats);
        assert_eq!(back.tail.marks.len(), 1);
        assert!(read_part("bsp-trace-part 2\nP 0 1 5\nS 1 2\n").is_err());
        assert!(read_part("something else").is_err());
    }
}
