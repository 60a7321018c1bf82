#include "apps/cli/signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <thread>

#include "base/cleanup.h"

namespace needle::cli {

void HandleInterruptions() {
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    // A signal the parent told us to ignore (nohup, a background job of a shell) stays ignored:
    // a blocked signal would be delivered to sigwait() whatever its disposition.
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaddset(&set, signal);
  }
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // then the defaults apply
  std::thread([set] {
    int signal = 0;
    while (sigwait(&set, &signal) != 0) {
    }
    RemoveRegistered();  // first: a full or stopped stderr must not keep the files around
    const std::string line = std::string("\nneedle: interrupted (") + strsignal(signal) +
                             "); removed its temporary files\n";
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
    _exit(128 + signal);
  }).detach();
}

}  // namespace needle::cli
