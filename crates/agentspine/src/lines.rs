//! Bounded line reading for the two line-delimited JSON front ends (the MCP
//! server's stdio and the desktop socket).
//!
//! A line is collected through `fill_buf`/`consume` and never grows past
//! the cap; the rest of a longer line is thrown away as it arrives, so
//! memory stays bounded whatever a peer sends, and the caller can answer
//! the line it never read.
//!
//! The socket also bounds the time a line may take: once its first byte
//! has arrived, [`next_line_within`] waits at most a given time for the
//! rest, so a peer that sends one byte now and then cannot hold a
//! connection open in the middle of a line. Waiting for a line to begin is
//! not bounded here (an idle connection is the caller's decision), and a
//! line that arrives whole in one read never starts a timer.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::time::Instant;

/// What reading one line gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line (without its newline) is in the buffer; also the last,
    /// unterminated line before end of input.
    Complete,
    /// A line longer than the cap ended with a newline; it was discarded.
    Oversized,
    /// End of input (a partial oversized line, if any, was discarded).
    Eof,
}

/// Reads the next line into `line` (cleared first), never holding more than
/// `cap` bytes of it.
pub async fn next_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Line> {
    read_line(input, line, cap, None).await
}

/// [`next_line`], except that a line whose first byte has arrived must end
/// within `limit`: else the error is [`io::ErrorKind::TimedOut`] and what
/// arrived of the line is dropped (the stream is then mid-line, so the
/// caller closes it).
pub async fn next_line_within<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
    limit: Duration,
) -> io::Result<Line> {
    read_line(input, line, cap, Some(limit)).await
}

async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
    limit: Option<Duration>,
) -> io::Result<Line> {
    line.clear();
    let mut discarding = false;
    // Set when a line has begun and not ended in the same read.
    let mut deadline: Option<Instant> = None;
    loop {
        let available = match deadline {
            None => input.fill_buf().await?,
            Some(until) => match tokio::time::timeout_at(until, input.fill_buf()).await {
                Ok(read) => read?,
                Err(_) => {
                    *line = Vec::new();
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the rest of the line did not arrive in time",
                    ));
                }
            },
        };
        if available.is_empty() {
            return Ok(if discarding || line.is_empty() { Line::Eof } else { Line::Complete });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let body = newline.unwrap_or(available.len());
        if !discarding && line.len() + body > cap {
            discarding = true;
            // Give the memory back: the line will never be used.
            *line = Vec::new();
        }
        if !discarding {
            line.extend_from_slice(&available[..body]);
        }
        input.consume(newline.map_or(body, |n| n + 1));
        if newline.is_some() {
            return Ok(if discarding { Line::Oversized } else { Line::Complete });
        }
        if deadline.is_none() {
            deadline = limit.map(|limit| Instant::now() + limit);
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::BufReader;

    use super::*;

    async fn lines(input: &[u8], cap: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = BufReader::with_capacity(8, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            let kind = next_line(&mut reader, &mut line, cap).await.unwrap();
            if kind == Line::Eof {
                return out;
            }
            out.push((kind, line.clone()));
        }
    }

    fn run<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
    }

    #[test]
    fn lines_over_the_cap_are_dropped_and_the_next_one_is_read() {
        let got = run(lines(b"short\n0123456789abcdef\nexactly10!\nnext\ntail", 10));
        assert_eq!(
            got,
            vec![
                (Line::Complete, b"short".to_vec()),
                (Line::Oversized, Vec::new()),
                (Line::Complete, b"exactly10!".to_vec()),
                (Line::Complete, b"next".to_vec()),
                (Line::Complete, b"tail".to_vec()),
            ]
        );
    }

    #[test]
    fn an_oversized_line_cut_by_end_of_input_is_dropped_silently() {
        assert_eq!(run(lines(b"ok\n0123456789abcdef", 10)), vec![(Line::Complete, b"ok".to_vec())]);
    }

    #[test]
    fn a_line_must_end_in_time_once_begun_but_may_be_long_in_coming() {
        use tokio::io::AsyncWriteExt;
        const LIMIT: Duration = Duration::from_millis(200);
        run(async {
            let (mut peer, ours) = tokio::io::duplex(64);
            let mut reader = BufReader::new(ours);
            let mut line = Vec::new();
            // Idle for longer than the limit, then a whole line: read.
            let writer = tokio::spawn(async move {
                tokio::time::sleep(LIMIT * 2).await;
                peer.write_all(b"whole\n").await.unwrap();
                peer.write_all(b"ha").await.unwrap();
                tokio::time::sleep(LIMIT / 4).await;
                peer.write_all(b"lf\nslo").await.unwrap();
                tokio::time::sleep(LIMIT * 3).await;
                peer.write_all(b"w\n").await.unwrap();
                peer
            });
            assert_eq!(next_line_within(&mut reader, &mut line, 1024, LIMIT).await.unwrap(), Line::Complete);
            assert_eq!(line, b"whole");
            // A line in two parts, the second within the limit: read.
            assert_eq!(next_line_within(&mut reader, &mut line, 1024, LIMIT).await.unwrap(), Line::Complete);
            assert_eq!(line, b"half");
            // A line whose rest comes too late: dropped with TimedOut.
            let started = std::time::Instant::now();
            let err = next_line_within(&mut reader, &mut line, 1024, LIMIT).await.unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::TimedOut);
            assert!(started.elapsed() < LIMIT * 2, "{:?}", started.elapsed());
            assert_eq!(line.capacity(), 0);
            drop(writer.await.unwrap());
        });
    }

    #[test]
    fn an_oversized_line_gives_its_memory_back() {
        const CAP: usize = 1024 * 1024;
        let mut input = vec![b'x'; CAP + 1];
        input.extend_from_slice(b"\n{}\n");
        run(async {
            let mut reader = BufReader::with_capacity(64 * 1024, &input[..]);
            let mut line = Vec::new();
            assert_eq!(next_line(&mut reader, &mut line, CAP).await.unwrap(), Line::Oversized);
            assert_eq!(line.capacity(), 0);
            assert_eq!(next_line(&mut reader, &mut line, CAP).await.unwrap(), Line::Complete);
            assert_eq!(line, b"{}");
        });
    }
}
