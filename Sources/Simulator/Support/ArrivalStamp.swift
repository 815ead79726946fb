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
    /// When the request arrived: its stamp, on the wall clock; on a clock a test moves by hand,
    /// that clock's reading now (real delays must not leak into a test's own time).
    func arrival(_ configuration: SimulatorConfiguration) -> Date {
        guard configuration.timesArrivals, let stamp = headers[ArrivalStamp.field].flatMap(Double.init) else { return configuration.clock() }
        return Date(timeIntervalSince1970: stamp)
    }
}
