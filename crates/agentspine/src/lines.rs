//! Bounded line reading for the two line-delimited JSON front ends (the MCP
//! server's stdio and the desktop socket).
//!
//! A line is collected through `fill_buf`/`consume` and never grows past
//! the cap; the rest of a longer line is thrown away as it arrives, so
//! memory stays bounded whatever a peer sends, and the caller can answer
//! the line it never read.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

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
    line.clear();
    let mut discarding = false;
    loop {
        let available = input.fill_buf().await?;
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
