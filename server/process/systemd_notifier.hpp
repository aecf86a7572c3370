#pragma once

#include <string>
#include <string_view>

namespace spindle::server {

/// systemd's service notification protocol (sd_notify(3)), spoken without libsystemd: one
/// datagram per state change to the AF_UNIX socket that NOTIFY_SOCKET names, which systemd
/// sets for a `Type=notify` unit (packaging/systemd/spindle.service). Outside systemd there is
/// no socket and every call does nothing.
///
///   READY=1       every PHP thread booted and the sites accept connections
///   RELOADING=1   a reload (SIGHUP) began, with MONOTONIC_USEC; READY=1 again when it is done
///   STOPPING=1    the drain after SIGTERM began
///
/// Messages are rare (start, reload, stop), so each opens its own socket: nothing stays open
/// for a PHP script to inherit. Any thread; the control thread sends them all today.
class systemd_notifier {
  public:
    /// Takes NOTIFY_SOCKET from the environment and removes it from there, as sd_notify's
    /// unset_environment does, so that PHP scripts and the programs they start never see it.
    /// Control thread, before the PHP engine imports the environment.
    static systemd_notifier from_environment();

    /// A notifier that sends to `socket_path` ("@name": an abstract socket); empty: none.
    explicit systemd_notifier(std::string socket_path);

    /// Whether systemd waits for these messages (NOTIFY_SOCKET was set).
    bool is_enabled() const { return !socket_path_.empty(); }

    /// READY=1 with a STATUS= line for `systemctl status`.
    void ready(std::string_view status) const;
    /// RELOADING=1 and MONOTONIC_USEC=now, as systemd requires of a reload notification.
    void reloading() const;
    /// STOPPING=1.
    void stopping() const;

  private:
    void send(const std::string& message) const;

    std::string socket_path_;
};

}  // namespace spindle::server
