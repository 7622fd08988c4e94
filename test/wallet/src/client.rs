//! The two transports a wallet speaks to a lightwalletd-compatible server, behind one client type
//! so that `sync::run` and every command are written once.
//!
//! - `grpc`: tonic's native HTTP/2 channel (h2c), as Zashi and Zingo connect to lightwalletd.
//! - `grpc-web`: `tonic_web::GrpcWebClientLayer` over a plain HTTP/1.1 hyper client, which is how
//!   a browser wallet reaches a server (gRPC-web framing, trailers in the body).

use http::Uri;
use hyper_util::{client::legacy::Client, rt::TokioExecutor};
use tonic::body::Body;
use tower::{util::BoxCloneSyncService, BoxError, ServiceBuilder, ServiceExt};
use zcash_client_backend::proto::service::compact_tx_streamer_client::CompactTxStreamerClient;

pub type Service = BoxCloneSyncService<http::Request<Body>, http::Response<Body>, BoxError>;
pub type WalletClient = CompactTxStreamerClient<Service>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Grpc,
    GrpcWeb,
}

impl Transport {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "grpc" => Ok(Transport::Grpc),
            "grpc-web" | "grpcweb" => Ok(Transport::GrpcWeb),
            other => Err(format!("unknown --transport {other:?} (grpc|grpc-web)")),
        }
    }
}

/// Connects to `url` (`http://host:port`). The gRPC channel connects lazily, so a dead server
/// surfaces as the first RPC's error, reported verbatim like any other.
pub fn connect(url: &str, transport: Transport) -> Result<WalletClient, String> {
    let uri: Uri = url.parse().map_err(|e| format!("--server {url:?}: {e}"))?;
    // Blocks are large; the library's defaults (4 MiB) can be too small for a 2 MB block batch.
    let max = 64 * 1024 * 1024;
    let service: Service = match transport {
        Transport::Grpc => {
            let channel = tonic::transport::Endpoint::from(uri.clone()).connect_lazy();
            BoxCloneSyncService::new(channel.map_err(BoxError::from))
        }
        Transport::GrpcWeb => {
            let http1 = Client::builder(TokioExecutor::new()).build_http();
            let svc = ServiceBuilder::new()
                .layer(tonic_web::GrpcWebClientLayer::new())
                .service(http1)
                .map_response(|res: http::Response<_>| res.map(Body::new))
                .map_err(BoxError::from);
            BoxCloneSyncService::new(svc)
        }
    };
    Ok(CompactTxStreamerClient::with_origin(service, uri)
        .max_decoding_message_size(max)
        .max_encoding_message_size(max))
}
