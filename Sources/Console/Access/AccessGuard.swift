import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the console, and the headers every answer carries.
///
/// Allowed: a request with the access token (`Authorization: Bearer …`, or the cookie the
/// sign-in page sets); a request through a trusted reverse proxy (its user header, believed only
/// from 127.0.0.1); with no token configured, a request from 127.0.0.1 itself. Everything else
/// gets 401 and the sign-in page. An action (POST) also needs the CSRF token of its form, and an
/// Origin, if sent, naming this host.
struct AccessGuard: RouterMiddleware {
    typealias Context = ConsoleContext
    static let cookie = "discern_console"
    let secrets: Secrets
    let trustedUserHeader: HTTPField.Name?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let path = request.uri.path
        let open = path.hasPrefix("/static/") || path == "/login"
        if !open {
            guard let user = user(request, context) else {
                return Self.secured(Response(status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8"],
                                             body: .init(byteBuffer: .init(string: SignIn.page(message: "Sign in with the console's token.")))))
            }
            context.user = user
        }
        var response = try await next(request, context)
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return Self.secured(response)
    }

    private func user(_ request: Request, _ context: Context) -> String? {
        if let bearer = request.headers[.authorization], bearer.hasPrefix("Bearer "), secrets.isAccessToken(String(bearer.dropFirst(7))) {
            return "token"
        }
        if secrets.isAccessToken(Self.cookieValue(request)) { return "token" }
        if let trustedUserHeader, context.isLoopback, let name = request.headers[trustedUserHeader], !name.isEmpty {
            return String(name.prefix(200))
        }
        if secrets.accessToken == nil, trustedUserHeader == nil, context.isLoopback, request.headers[.init("X-Forwarded-For")!] == nil {
            return "local"
        }
        return nil
    }

    static func cookieValue(_ request: Request) -> String? {
        guard let header = request.headers[.cookie] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(cookie + "=") { return String(pair.dropFirst(cookie.count + 1)) }
        }
        return nil
    }

    /// No script from anywhere, styles and images from here only, no framing.
    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = "default-src 'none'; img-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "same-origin"
        return response
    }
}

/// The sign-in page: one field for the token; the cookie it sets is HttpOnly and SameSite=Strict.
enum SignIn {
    static func page(message: String) -> String {
        Page(title: "Sign in", active: "", body: """
            <p>\(HTML.text(message))</p>
            <form method="post" action="/login"><label>token <input type="password" name="token" autocomplete="current-password"></label>
            <button type="submit" class="primary">Sign in</button></form>
            """).render(readOnly: false)
    }
}
