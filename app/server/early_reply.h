// The answer to a connection refused before cpp-httplib parses anything (too many connections,
// a head too large or too slow): a complete HTTP/1.1 response with the OpenAI error shape and
// "Connection: close", sent without blocking (best effort: a client that does not read it loses
// it), then the connection is closed without a reset where the kernel allows.
#pragma once

#include <string>

namespace snapdoc::server {

// The complete response: 400, 408, 431 or 503 with `message`.
std::string early_reply_text(int status, const std::string& code, const std::string& message);
// Sends early_reply_text on the plain socket `fd`, then closes it.
void reply_and_close(int fd, int status, const std::string& code, const std::string& message);
// Closes `fd` after reading (and dropping) what the client already sent, so that the kernel ends
// the connection with FIN rather than a reset that could discard a reply still in flight.
void close_quietly(int fd);

}  // namespace snapdoc::server
