import Foundation
import Hummingbird

/// Answers queued by a test for the next calls to one route, ahead of the simulated logic:
/// for outcomes the simulator would otherwise pick from the image (no face, two faces).
public actor ScriptedReplies {
    public struct Reply: Sendable {
        let status: Int
        let body: String
        let retryAfter: Int?

        public init(status: Int, json body: String, retryAfter: Int? = nil) {
            self.status = status
            self.body = body
            self.retryAfter = retryAfter
        }

        /// OOTO's error body: `{"transactionId", "result": {"status": "error", "code", "info"}}`.
        public static func ootoError(code: Int, info: String) -> Reply {
            Reply(
                status: 400,
                json: #"{"transactionId":"\#(UUID().uuidString.lowercased())","result":{"status":"error","code":\#(code),"info":"\#(info)"}}"#)
        }

        /// Azure Face's error body: `{"error": {"code", "message"}}`.
        public static func azureError(status: Int, code: String, message: String) -> Reply {
            Reply(status: status, json: #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#)
        }
    }

    private var queued: [String: [Reply]] = [:]

    public init() {}

    /// Queues a reply for the next call to `route`, e.g. `ooto.identify`, `azure.detect`.
    public func enqueue(_ route: String, _ reply: Reply) { queued[route, default: []].append(reply) }

    func next(_ route: String) -> Response? {
        guard var replies = queued[route], !replies.isEmpty else { return nil }
        let reply = replies.removeFirst()
        queued[route] = replies
        var response = Response(
            status: .init(code: reply.status), headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body)))
        if let wait = reply.retryAfter { response.headers[.retryAfter] = "\(wait)" }
        return response
    }
}
