import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Stamps each request with the moment its bytes reached this machine, as a service's front
/// door (its kernel, its load balancer) counts calls, and with the moment the server read it.
///
/// The server can read a request long after it arrived: an event loop held up by a loaded
/// machine, or a new connection left in the accept queue while the tasks that take connections
/// (Swift's cooperative pool, or the test process's shared simulator threads) are busy. Stamped
/// when read, calls that came spaced would be stamped together, and a client that keeps a rate
/// limit would look as if it broke it (docs/decisions/0006-rate-slot-timing.md).
/// So the arrival is the kernel's: now, less how long ago the connection last received data
/// (TCP_INFO's `tcpi_last_data_recv`, in milliseconds). That is the head's own arrival for any
/// request whose body followed it at once (discern sends no `Expect: 100-continue`); where no
/// TCP information exists (another platform, a Unix socket), the read time stands in.
/// Whatever a client sent under either name is replaced.
final class ArrivalStamp: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    static let arrivalField = HTTPField.Name("x-discern-simulator-arrival")!
    static let readField = HTTPField.Name("x-discern-simulator-read")!
    /// Set when the kernel's time was not to be had and the read time stands in.
    static let unstampedField = HTTPField.Name("x-discern-simulator-unstamped")!

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let read = Date().timeIntervalSince1970, since = Self.sinceLastData(context.channel)
        head.headerFields[Self.arrivalField] = String(read - (since ?? 0))
        head.headerFields[Self.readField] = String(read)
        head.headerFields[Self.unstampedField] = since == nil ? "1" : nil
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// Seconds since the connection last received data, from the kernel; nil without TCP_INFO.
    private static func sinceLastData(_ channel: any Channel) -> Double? {
        #if os(Linux)
            guard let provider = channel as? any SocketOptionProvider else { return nil }
            var milliseconds: UInt32?
            // On the channel's own event loop (where a handler runs) the option is read at once and
            // the future is complete before this returns.
            provider.getTCPInfo().assumeIsolated().whenSuccess { milliseconds = $0.tcpi_last_data_recv }
            return milliseconds.map { Double($0) / 1000 }
        #else
            return nil
        #endif
    }
}

extension Request {
    /// When the request arrived: its stamp, on the wall clock; on a clock a test moves by hand,
    /// that clock's reading now (real delays must not leak into a test's own time).
    func arrival(_ configuration: SimulatorConfiguration) -> Date { stamp(ArrivalStamp.arrivalField, configuration) }

    /// When the server read it (at or after `arrival`), on the same terms.
    func readTime(_ configuration: SimulatorConfiguration) -> Date { stamp(ArrivalStamp.readField, configuration) }

    /// Whether `arrival` is only the read time (no TCP information for its connection).
    var isUnstamped: Bool { headers[ArrivalStamp.unstampedField] != nil }

    private func stamp(_ field: HTTPField.Name, _ configuration: SimulatorConfiguration) -> Date {
        guard configuration.timesArrivals, let stamp = headers[field].flatMap(Double.init) else { return configuration.clock() }
        return Date(timeIntervalSince1970: stamp)
    }
}
