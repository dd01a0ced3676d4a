//! What the model reads in a turn besides the prompt: the person's attachments, messages for
//! the agent (its inbox, as reminders), and text a person sent while the turn runs.

use kigi_protocol::{Message, ReminderSource, SessionEvent};

use crate::inbox::Inbox;

use super::{Session, TurnError};
use crate::attachments::ResolvedAttachments;
use crate::session_store::StoreError;

impl Session {
    /// Quotes a turn's attachments after its prompt (images only for a model that reads
    /// them), and records them so a resume sends them again.
    pub(super) fn add_attachments(
        &mut self,
        attachments: ResolvedAttachments,
    ) -> Result<(), TurnError> {
        if attachments.is_empty() {
            return Ok(());
        }
        let attachments = if self.setup.client.endpoint().accepts_images {
            attachments
        } else {
            attachments.without_images()
        };
        let parts = crate::attachments::attachment_parts(&attachments.files, &attachments.images);
        if let Some(last) = self.messages.last_mut() {
            last.content.extend(parts);
        }
        self.emit(SessionEvent::UserAttachments {
            files: attachments.files,
            images: attachments.images,
        })?;
        Ok(())
    }

    /// Hands waiting inbox messages to the model as reminders.
    pub(super) fn deliver_inbox(&mut self) -> Result<(), StoreError> {
        let Some(inbox) = self.setup.inbox.clone() else {
            return Ok(());
        };
        for message in inbox.drain() {
            let text = format!("<system-reminder>\n{message}\n</system-reminder>");
            self.emit(SessionEvent::Reminder {
                text: text.clone(),
                source: ReminderSource::Message,
            })?;
            self.messages.push(Message::user(text));
        }
        Ok(())
    }

    /// Hands text a person sent during the turn to the model, as their own message.
    pub(super) fn deliver_steering(&mut self) -> Result<(), StoreError> {
        let Some(steer) = self.setup.steer.clone() else {
            return Ok(());
        };
        for text in steer.drain() {
            self.emit(SessionEvent::UserMessage { text: text.clone() })?;
            self.messages.push(Message::user(text));
        }
        Ok(())
    }

    pub(super) fn steering_waits(&self) -> bool {
        self.setup.steer.as_ref().is_some_and(|s| !s.is_empty())
    }
}
