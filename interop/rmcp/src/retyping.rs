//! The transport wrapper of the retyping scenarios. While a scenario asks for it, it turns the
//! integer id of each response, or the integer token of each progress notification, into its
//! string form before rmcp reads it: what a server that echoes the other JSON type would send.
//! Everything else, and everything outside those scenarios, passes through unchanged.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, NumberOrString, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// What the wrapper retypes now, and how many messages it has retyped.
#[derive(Default)]
pub(crate) struct Retype {
    pub(crate) response_ids: AtomicBool,
    pub(crate) progress_tokens: AtomicBool,
    pub(crate) count: AtomicUsize,
}

impl Retype {
    fn message(&self, mut message: RxJsonRpcMessage<RoleClient>) -> RxJsonRpcMessage<RoleClient> {
        let id = match &mut message {
            JsonRpcMessage::Response(response) if self.response_ids.load(Ordering::SeqCst) => {
                Some(&mut response.id)
            }
            JsonRpcMessage::Error(error) if self.response_ids.load(Ordering::SeqCst) => {
                error.id.as_mut()
            }
            JsonRpcMessage::Notification(notification)
                if self.progress_tokens.load(Ordering::SeqCst) =>
            {
                match &mut notification.notification {
                    ServerNotification::ProgressNotification(progress) => {
                        Some(&mut progress.params.progress_token.0)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(value) = id
            && let NumberOrString::Number(number) = value
        {
            *value = NumberOrString::String(number.to_string().into());
            self.count.fetch_add(1, Ordering::SeqCst);
        }
        message
    }
}

/// A client transport whose received messages go through [`Retype`].
pub(crate) struct Retyping<T> {
    pub(crate) inner: T,
    pub(crate) retype: Arc<Retype>,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Retyping<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let retype = self.retype.clone();
        let received = self.inner.receive();
        async move { received.await.map(|message| retype.message(message)) }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
