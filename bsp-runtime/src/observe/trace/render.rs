//! Rendering a run's records: Chrome trace-event JSON, the summary table and the SVG timeline.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::{Proc, ProcStep};
use crate::observe::stats::Machine;

/// The records of every process of a run, on one time axis, whose 0 is the earliest origin.
pub(super) struct Run {
    procs: Vec<Proc>,
}

/// `t` (ns) as µs with three decimals.
fn us(t: u64) -> String {
    format!("{}.{:03}", t / 1000, t % 1000)
}

fn secs(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns < 10_000 {
        format!("{ns} ns")
    } else if ns < 10_000_000 {
        format!("{:.1} us", ns as f64 / 1e3)
    } else {
        format!("{:.2} ms", ns as f64 / 1e6)
    }
}

/// One superstep over all processes.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    /// The longest superstep among the processes (from the end of the previous sync to the
    /// end of this one).
    time: u64,
    w_max: Duration,
    sync_max: Duration,
    wait_max: Duration,
    h_max: usize,
    bytes: usize,
    ops: usize,
}

impl Run {
    /// Aligns the processes by their monotonic origins if they all have one (threads), else by
    /// the wall clock (MPI ranks).
    pub(super) fn new(mut procs: Vec<Proc>) -> Run {
        let origins: Option<Vec<Instant>> = procs.iter().map(|p| p.origin).collect();
        match origins.as_deref().and_then(|o| o.iter().min().copied()) {
            Some(zero) => {
                for p in &mut procs {
                    let origin = p.origin.expect("every process has one");
                    p.offset = origin.saturating_duration_since(zero).as_nanos() as u64;
                }
            }
            None => {
                let zero = procs.iter().map(|p| p.wall).min().unwrap_or(0);
                for p in &mut procs {
                    p.offset = p.wall - zero;
                }
            }
        }
        Run { procs }
    }

    /// `t` (ns since process `p`'s origin) on the run's axis.
    fn at(&self, p: &Proc, t: u64) -> u64 {
        t + p.offset
    }

    fn steps(&self) -> usize {
        self.procs.iter().map(|p| p.steps.len()).max().unwrap_or(0)
    }

    fn rows(&self) -> Vec<Row> {
        (0..self.steps())
            .map(|k| {
                let mut row = Row::default();
                for s in self.procs.iter().filter_map(|p| p.steps.get(k)) {
                    row.time = row.time.max(s.end.saturating_sub(s.start));
                    row.w_max = row.w_max.max(s.stats.compute);
                    row.sync_max = row.sync_max.max(s.stats.sync());
                    row.wait_max = row.wait_max.max(s.stats.wait);
                    row.h_max = row.h_max.max(s.stats.h_bytes);
                    row.bytes += s.stats.sent.bytes() + s.stats.local.bytes();
                    row.ops += s.stats.sent.count() + s.stats.local.count();
                }
                row
            })
            .collect()
    }

    /// Chrome trace-event JSON: one process per BSP process (`pid`), slices for each
    /// superstep with its compute, wait and data spans nested inside, counters for h and bytes.
    pub(super) fn chrome_json(&self) -> String {
        let mut o = String::with_capacity(4096);
        o.push_str("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        let mut first = true;
        let mut ev = |o: &mut String, s: String| {
            if !first {
                o.push_str(",\n");
            }
            first = false;
            o.push_str(&s);
        };
        for p in &self.procs {
            let pid = p.pid;
            ev(
                &mut o,
                format!(
                    r#"{{"ph":"M","name":"process_name","pid":{pid},"tid":0,"args":{{"name":"bsp process {pid}"}}}}"#
                ),
            );
            ev(
                &mut o,
                format!(
                    r#"{{"ph":"M","name":"process_sort_index","pid":{pid},"tid":0,"args":{{"sort_index":{pid}}}}}"#
                ),
            );
            ev(
                &mut o,
                format!(r#"{{"ph":"M","name":"thread_name","pid":{pid},"tid":0,"args":{{"name":"supersteps"}}}}"#),
            );
            for s in &p.steps {
                let st = &s.stats;
                let (start, end) = (self.at(p, s.start), self.at(p, s.end));
                ev(
                    &mut o,
                    format!(
                        r#"{{"ph":"X","cat":"superstep","name":"superstep {}","pid":{pid},"tid":0,"ts":{},"dur":{},"args":{{"superstep":{},"compute_ns":{},"wait_ns":{},"data_ns":{},"h_bytes":{},"sent_bytes":{},"received_bytes":{},"local_bytes":{},"puts_sent":{},"gets_served":{},"messages_sent":{},"collective_bytes_sent":{},"puts_received":{},"gets_received":{},"messages_received":{},"collective_bytes_received":{}}}}}"#,
                        st.step,
                        us(start),
                        us(end - start),
                        st.step,
                        st.compute.as_nanos(),
                        st.wait.as_nanos(),
                        st.data.as_nanos(),
                        st.h_bytes,
                        st.sent.bytes(),
                        st.received.bytes(),
                        st.local.bytes(),
                        st.sent.puts,
                        st.sent.gets,
                        st.sent.messages,
                        st.sent.collective_bytes,
                        st.received.puts,
                        st.received.gets,
                        st.received.messages,
                        st.received.collective_bytes,
                    ),
                );
                self.spans_json(&mut o, &mut ev, p, s, st.step as i64);
                ev(
                    &mut o,
                    format!(
                        r#"{{"ph":"C","name":"h (bytes)","pid":{pid},"tid":0,"ts":{},"args":{{"h":{}}}}}"#,
                        us(start),
                        st.h_bytes
                    ),
                );
                ev(
                    &mut o,
                    format!(
                        r#"{{"ph":"C","name":"bytes","pid":{pid},"tid":0,"ts":{},"args":{{"sent":{},"received":{}}}}}"#,
                        us(start),
                        st.sent.bytes(),
                        st.received.bytes()
                    ),
                );
            }
            let t = &p.tail;
            let (start, end) = (self.at(p, t.start), self.at(p, t.end));
            ev(
                &mut o,
                format!(
                    r#"{{"ph":"X","cat":"superstep","name":"end of the SPMD function","pid":{pid},"tid":0,"ts":{},"dur":{},"args":{{"superstep":{}}}}}"#,
                    us(start),
                    us(end - start),
                    p.steps.len()
                ),
            );
            self.spans_json(&mut o, &mut ev, p, t, p.steps.len() as i64);
            for name in ["h (bytes)", "bytes"] {
                let args = if name == "bytes" { r#"{"sent":0,"received":0}"# } else { r#"{"h":0}"# };
                ev(
                    &mut o,
                    format!(r#"{{"ph":"C","name":"{name}","pid":{pid},"tid":0,"ts":{},"args":{args}}}"#, us(start)),
                );
            }
        }
        o.push_str("\n]}\n");
        o
    }

    fn spans_json(&self, o: &mut String, ev: &mut impl FnMut(&mut String, String), p: &Proc, s: &ProcStep, step: i64) {
        for (name, a, b) in s.spans() {
            let (a, b) = (self.at(p, a), self.at(p, b));
            let cat = if name == "compute" { "compute" } else { "sync" };
            ev(
                o,
                format!(
                    r#"{{"ph":"X","cat":"{cat}","name":"{name}","pid":{},"tid":0,"ts":{},"dur":{},"args":{{"superstep":{step}}}}}"#,
                    p.pid,
                    us(a),
                    us(b - a)
                ),
            );
        }
    }

    /// The summary table: one row per superstep over all processes (the first 20 and the last
    /// 10 if there are more than 40), then the totals.
    pub(super) fn table(&self, machine: Option<&Machine>) -> String {
        let rows = self.rows();
        let mut o = String::new();
        let p = self.procs.len();
        let _ =
            writeln!(o, "bsp: {} supersteps on {p} processes (figures: the maximum over the processes)", rows.len());
        let _ = write!(
            o,
            "{:>6} {:>11} {:>11} {:>11} {:>11} {:>10} {:>12} {:>8}",
            "step", "time", "w", "sync", "wait", "h words", "bytes", "ops"
        );
        if machine.is_some() {
            let _ = write!(o, " {:>11} {:>6}", "predicted", "ratio");
        }
        o.push('\n');
        let line = |o: &mut String, label: &str, r: &Row, predicted: Option<Duration>| {
            let time = Duration::from_nanos(r.time);
            let _ = write!(
                o,
                "{label:>6} {:>11} {:>11} {:>11} {:>11} {:>10} {:>12} {:>8}",
                secs(time),
                secs(r.w_max),
                secs(r.sync_max),
                secs(r.wait_max),
                r.h_max.div_ceil(crate::observe::stats::WORD),
                r.bytes,
                r.ops
            );
            if let Some(t) = predicted {
                let ratio = if time.is_zero() { 0.0 } else { t.as_secs_f64() / time.as_secs_f64() };
                let _ = write!(o, " {:>11} {:>6.2}", secs(t), ratio);
            }
            o.push('\n');
        };
        let n = rows.len();
        let shown = |k: usize| n <= 40 || k < 20 || k >= n - 10;
        let mut total = Row::default();
        let mut predicted_total = Duration::ZERO;
        for (k, r) in rows.iter().enumerate() {
            let predicted = machine.map(|m| m.predict(r.w_max, r.h_max));
            predicted_total += predicted.unwrap_or_default();
            if shown(k) {
                line(&mut o, &k.to_string(), r, predicted);
            } else if k == 20 {
                let _ = writeln!(o, "{:>6} ({} supersteps not shown)", "...", n - 30);
            }
            total.time += r.time;
            total.w_max += r.w_max;
            total.sync_max += r.sync_max;
            total.wait_max += r.wait_max;
            total.h_max += r.h_max;
            total.bytes += r.bytes;
            total.ops += r.ops;
        }
        line(&mut o, "total", &total, machine.map(|_| predicted_total));
        if let Some(m) = machine {
            let _ = writeln!(
                o,
                "predicted = w + h*g + l with g = {:.2} ns per {}-byte word, l = {:.3} us (measured with p = {})",
                m.g * 1e9,
                crate::observe::stats::WORD,
                m.l * 1e6,
                m.p
            );
        }
        o
    }

    /// An SVG timeline: one row per process (compute, sync wait, data movement), and h per
    /// superstep below, on the same time axis.
    pub(super) fn svg(&self) -> String {
        const W: usize = 960;
        const LEFT: usize = 110;
        const ROW: usize = 26;
        let p = self.procs.len();
        let end = self
            .procs
            .iter()
            .map(|q| self.at(q, q.tail.end.max(q.steps.last().map_or(0, |s| s.end))))
            .max()
            .unwrap_or(1)
            .max(1);
        let top = 56;
        let chart_top = top + p * ROW + 34;
        let chart_h = 70;
        let height = chart_top + chart_h + 58;
        let width = LEFT + W + 30;
        let col_ns = end as f64 / W as f64;
        let mut o = String::new();
        let _ = writeln!(
            o,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(o, r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##);
        let rows = self.rows();
        let _ = writeln!(
            o,
            r#"<text x="10" y="22" font-size="15" font-weight="bold">BSP run: {p} processes, {} supersteps, {}</text>"#,
            rows.len(),
            secs(Duration::from_nanos(end))
        );
        // Legend.
        let mut x = LEFT;
        for (name, color) in [("compute (w)", COMPUTE), ("sync wait", WAIT), ("data movement", DATA)] {
            let _ = writeln!(o, r#"<rect x="{x}" y="32" width="12" height="12" fill="{color}"/>"#);
            let _ = writeln!(o, r#"<text x="{}" y="43">{name}</text>"#, x + 17);
            x += 150;
        }
        let _ = writeln!(o, r##"<line x1="{x}" y1="31" x2="{x}" y2="45" stroke="#222222"/>"##);
        let _ = writeln!(o, r#"<text x="{}" y="43">end of a sync</text>"#, x + 8);
        // One row per process: per pixel column, the phase that took most of its time.
        for (i, q) in self.procs.iter().enumerate() {
            let y = top + i * ROW;
            let _ = writeln!(o, r#"<text x="10" y="{}">process {}</text>"#, y + 16, q.pid);
            let mut cols = vec![[0u64; 3]; W];
            let spans = q.steps.iter().chain(std::iter::once(&q.tail)).flat_map(|s| s.spans());
            for (name, a, b) in spans {
                let kind = match name {
                    "compute" => 0,
                    "sync wait" => 1,
                    _ => 2,
                };
                let (a, b) = (self.at(q, a), self.at(q, b));
                let mut t = a;
                while t < b {
                    let c = ((t as f64 / col_ns) as usize).min(W - 1);
                    let col_end = (((c + 1) as f64 * col_ns) as u64).max(t + 1);
                    let upto = b.min(col_end);
                    cols[c][kind] += upto - t;
                    t = upto;
                }
            }
            let mut c = 0;
            while c < W {
                let dominant = |col: &[u64; 3]| -> Option<usize> {
                    (col.iter().sum::<u64>() > 0).then(|| (0..3).max_by_key(|&k| col[k]).unwrap_or(0))
                };
                let Some(kind) = dominant(&cols[c]) else {
                    c += 1;
                    continue;
                };
                let start = c;
                while c < W && dominant(&cols[c]) == Some(kind) {
                    c += 1;
                }
                let color = [COMPUTE, WAIT, DATA][kind];
                let _ = writeln!(
                    o,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{color}"/>"#,
                    LEFT + start,
                    y + 3,
                    c - start,
                    ROW - 6
                );
            }
            // The end of each sync, if they are few enough to tell apart.
            if q.steps.len() <= W / 4 {
                for st in &q.steps {
                    let x = LEFT as f64 + self.at(q, st.end) as f64 / col_ns;
                    let _ = writeln!(
                        o,
                        r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#222222" stroke-width="1"/>"##,
                        y + 1,
                        y + ROW - 1
                    );
                }
            }
        }
        // h per superstep: the largest h among the processes, drawn over the superstep's span
        // (process 0's times).
        let h_top = rows.iter().map(|r| r.h_max).max().unwrap_or(0);
        let _ = writeln!(
            o,
            r#"<text x="10" y="{}">h per superstep (max {} words)</text>"#,
            chart_top - 10,
            h_top.div_ceil(crate::observe::stats::WORD)
        );
        let _ = writeln!(
            o,
            r##"<line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="#999999"/>"##,
            chart_top + chart_h,
            LEFT + W,
            chart_top + chart_h
        );
        if let (Some(q), true) = (self.procs.first(), h_top > 0) {
            let mut cols = vec![0usize; W];
            for (k, s) in q.steps.iter().enumerate() {
                let (a, b) = (self.at(q, s.start), self.at(q, s.end));
                let (ca, cb) = (((a as f64 / col_ns) as usize).min(W - 1), ((b as f64 / col_ns) as usize).min(W - 1));
                for col in &mut cols[ca..=cb] {
                    *col = (*col).max(rows[k].h_max);
                }
            }
            for (c, &h) in cols.iter().enumerate().filter(|&(_, &h)| h > 0) {
                let bar = ((h as f64 / h_top as f64) * chart_h as f64).max(1.0);
                let _ = writeln!(
                    o,
                    r#"<rect x="{}" y="{:.1}" width="1" height="{bar:.1}" fill="{H_COLOR}"/>"#,
                    LEFT + c,
                    (chart_top + chart_h) as f64 - bar
                );
            }
        }
        // Time axis.
        let axis = chart_top + chart_h + 18;
        for i in 0..=4 {
            let x = LEFT + i * W / 4;
            let t = end * i as u64 / 4;
            let _ = writeln!(
                o,
                r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#999999"/>"##,
                top,
                chart_top + chart_h
            );
            let anchor = if i == 4 { "end" } else { "middle" };
            let label = match end {
                0..10_000 => format!("{t} ns"),
                10_000..10_000_000 => format!("{:.1} us", t as f64 / 1e3),
                _ => format!("{:.2} ms", t as f64 / 1e6),
            };
            let _ = writeln!(o, r#"<text x="{x}" y="{axis}" text-anchor="{anchor}">{label}</text>"#);
        }
        let _ = writeln!(
            o,
            r#"<text x="{}" y="{}" text-anchor="middle">time since the start of the run</text>"#,
            LEFT + W / 2,
            axis + 18
        );
        o.push_str("</svg>\n");
        o
    }
}

const COMPUTE: &str = "#4e79a7";
const WAIT: &str = "#c9c9c9";
const DATA: &str = "#f28e2b";
const H_COLOR: &str = "#59a14f";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::trace::sample;

    #[test]
    fn spans_follow_the_marks_and_processes_share_one_axis() {
        let run = Run::new(vec![sample(0), sample(1)]);
        let spans: Vec<_> = run.procs[0].steps[0].spans().collect();
        assert_eq!(
            spans,
            [
                ("compute", 0, 1500),
                ("sync wait", 1500, 1800),
                ("data movement", 1800, 1900),
                ("sync wait", 1900, 1950),
                ("data movement", 1950, 2000)
            ]
        );
        // Process 1 started 50 ns after process 0 (wall clock).
        assert_eq!(run.at(&run.procs[1], 0), 50);
        let rows = run.rows();
        // h counts the collective's 24 bytes received beside the 40 of gets.
        assert_eq!((rows[0].h_max, rows[0].bytes, rows[0].ops), (64, 2 * (28 + 9), 2 * (3 + 3)));
        assert!(run.chrome_json().contains(r#""received_bytes":64,"#), "{}", run.chrome_json());
        assert!(run.chrome_json().contains(r#""collective_bytes_received":24}"#), "{}", run.chrome_json());
        let m = Machine { p: 2, r: 1e9, g: 1e-8, l: 1e-6 };
        let table = run.table(Some(&m));
        assert!(table.contains("bsp: 1 supersteps on 2 processes"), "{table}");
        assert!(run.svg().contains(">process 1</text>"));
    }
}
