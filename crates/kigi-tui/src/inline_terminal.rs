//! The inline viewport: finished cells are printed into the terminal's own scrollback above a
//! live area kept at the bottom, which is redrawn in place.
//!
//! The rule: every row written is exactly the screen's width (rendered through a ratatui
//! [`Buffer`], so nothing can wrap), rows scroll off the top only through a line feed on the
//! last row (which every terminal keeps in its scrollback), and a change of size redraws the
//! whole conversation at the new width from the top of a cleared screen: a resize or a narrow
//! terminal never leaves broken rows behind.

use std::io::{self, Write};

use crossterm::cursor::{Hide, MoveTo, Show};
use crossterm::queue;
use crossterm::terminal::{BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate};
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::app::App;
use crate::view::render_live;

/// Draws an [`App`] inline on a terminal written through `W`.
#[derive(Debug)]
pub struct InlineTerminal<W: Write> {
    backend: CrosstermBackend<W>,
    /// The screen size of the last frame.
    size: Option<(u16, u16)>,
    /// The screen row where the live area starts.
    live_top: u16,
    /// Cells of the transcript already printed.
    printed: usize,
    /// The next frame starts over from a cleared screen (another program had the terminal).
    reprint: bool,
}

impl<W: Write> InlineTerminal<W> {
    /// An inline terminal whose live area starts at row `top`.
    pub fn new(writer: W, top: u16) -> Self {
        Self {
            backend: CrosstermBackend::new(writer),
            size: None,
            live_top: top,
            printed: 0,
            reprint: false,
        }
    }

    /// Makes the next frame clear the screen and print the whole conversation again, as after
    /// a resize: what another program (an editor) left on the screen is not trusted.
    pub fn reprint(&mut self) {
        self.reprint = true;
    }

    /// Draws one frame on a screen `width` × `height`: new finished cells above, the live
    /// area below them.
    pub fn draw(&mut self, app: &App, (width, height): (u16, u16)) -> io::Result<()> {
        let (width, height) = (width.max(1), height.max(1));
        queue!(self.backend, BeginSynchronizedUpdate, Hide)?;
        if self.reprint || self.size.is_some_and(|s| s != (width, height)) {
            self.reprint = false;
            // Rows printed at the old width may have been re-wrapped (or not) by the terminal:
            // start over, at the new width, from a clean screen.
            queue!(self.backend, Clear(ClearType::All), Clear(ClearType::Purge))?;
            self.live_top = 0;
            self.printed = 0;
        }
        self.size = Some((width, height));
        let mut history: Vec<Line<'static>> = Vec::new();
        for cell in &app.transcript.cells[self.printed.min(app.transcript.cells.len())..] {
            if (self.printed > 0 || !history.is_empty()) && !cell.joins_previous() {
                history.push(Line::default());
            }
            history.extend(cell.lines(width as usize, &app.theme));
        }
        self.printed = app.transcript.cells.len();
        let mut row = self.live_top.min(height - 1);
        if !history.is_empty() {
            let mut buffer = Buffer::empty(Rect::new(0, 0, width, 1));
            for line in &history {
                if row >= height {
                    self.scroll(1, height)?;
                    row = height - 1;
                }
                buffer.reset();
                buffer.set_line(0, 0, line, width);
                self.backend.draw(
                    buffer
                        .content()
                        .iter()
                        .enumerate()
                        .map(|(x, cell)| (x as u16, row, cell)),
                )?;
                row += 1;
            }
        }
        let live_height = height;
        let mut live = Buffer::empty(Rect::new(0, 0, width, live_height));
        let cursor = render_live(app, live.area, &mut live);
        let used = used_rows(&live).max(1);
        if row + used > height {
            self.scroll(row + used - height, height)?;
            row = height - used;
        }
        self.live_top = row;
        let top = row;
        self.backend.draw(
            live.content()
                .iter()
                .enumerate()
                .filter(|(i, _)| (*i / width as usize) < used as usize)
                .map(|(i, cell)| {
                    (
                        (i % width as usize) as u16,
                        top + (i / width as usize) as u16,
                        cell,
                    )
                }),
        )?;
        if top + used < height {
            queue!(
                self.backend,
                MoveTo(0, top + used),
                Clear(ClearType::FromCursorDown)
            )?;
        }
        if let Some((x, y)) = cursor {
            queue!(self.backend, MoveTo(x, top + y), Show)?;
        }
        queue!(self.backend, EndSynchronizedUpdate)?;
        Backend::flush(&mut self.backend)
    }

    /// Clears the live area and leaves the cursor below the conversation.
    pub fn finish(&mut self) -> io::Result<()> {
        queue!(
            self.backend,
            MoveTo(0, self.live_top),
            Clear(ClearType::FromCursorDown),
            Show
        )?;
        Backend::flush(&mut self.backend)
    }

    /// Scrolls the screen up `n` rows into the scrollback.
    fn scroll(&mut self, n: u16, height: u16) -> io::Result<()> {
        queue!(self.backend, MoveTo(0, height - 1))?;
        for _ in 0..n {
            self.backend.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Rows of `buffer` down to the last one drawn on (the live area takes no more).
fn used_rows(buffer: &Buffer) -> u16 {
    let width = buffer.area.width as usize;
    let rows = buffer.area.height as usize;
    (0..rows)
        .rev()
        .find(|r| {
            buffer.content()[r * width..(r + 1) * width]
                .iter()
                .any(|c| c.symbol() != " ")
        })
        .map_or(0, |r| r as u16 + 1)
}
