import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Stamps each request with the moment its head was read off the connection, on the event loop.
///
/// A service counts calls where they arrive. The route handlers run later, as tasks on Swift's
/// cooperative pool, which a busy process (the test suite, with every test in parallel) can hold
/// up for a second or more: calls that arrived spaced would then be counted as arriving together.
/// The stamp is taken before that queue; whatever a client sent under the same name is replaced.
final class ArrivalStamp: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    static let field = HTTPField.Name("x-discern-simulator-arrival")!

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        head.headerFields[Self.field] = String(Date().timeIntervalSince1970)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

extension Request {
    /// When the request arrived, on the simulator's `clock`: the stamp's moment, moved by as much
    /// as `clock` differs from the wall clock (tests may run the simulator on a clock of their own).
    func arrival(on clock: @Sendable () -> Date) -> Date {
        let now = clock()
        guard let stamp = headers[ArrivalStamp.field].flatMap(Double.init) else { return now }
        return now.addingTimeInterval(-max(0, Date().timeIntervalSince1970 - stamp))
    }
}
