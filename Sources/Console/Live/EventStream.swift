import Hummingbird
import NIOCore

/// `GET /events`: server-sent events telling a page that what it shows changed
/// (`event: change`), at most one a second however many changes there were; a comment every
/// 15 s keeps proxies from closing an idle stream. A stream ends after ten minutes (the browser
/// reconnects by itself, after `retry`), or when the console stops.
enum EventStream {
    static let minimumGap: Duration = .seconds(1)
    static let keepAlive: Duration = .seconds(15)
    static let lifetime: Duration = .seconds(600)
    /// How often a stream looks at the feed's count: an in-memory read.
    static let look: Duration = .milliseconds(200)

    static func response(_ feed: ChangeFeed) -> Response {
        let body = ResponseBody { writer in
            let clock = ContinuousClock()
            let opened = clock.now
            var seen = feed.version, lastSent = opened, lastWritten = opened
            try await writer.write(ByteBuffer(string: "retry: 3000\n: discern console changes\n\n"))
            while !feed.isClosed && !Task.isCancelled && clock.now - opened < lifetime {
                try await Task.sleep(for: look)
                let now = clock.now, current = feed.version
                if current != seen && now - lastSent >= minimumGap {
                    seen = current
                    (lastSent, lastWritten) = (now, now)
                    try await writer.write(ByteBuffer(string: "event: change\ndata: \(current)\n\n"))
                } else if now - lastWritten >= keepAlive {
                    lastWritten = now
                    try await writer.write(ByteBuffer(string: ": alive\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}
