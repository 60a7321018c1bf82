#include "apps/cli/signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "loaders/cleanup.h"

namespace needle::cli {

void HandleInterruptions() {
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // then the defaults apply
  std::thread([set] {
    int signal = 0;
    while (sigwait(&set, &signal) != 0) {
    }
    std::fprintf(stderr, "\nneedle: interrupted (%s); removing its temporary files\n",
                 strsignal(signal));
    RemoveRegistered();
    _exit(128 + signal);
  }).detach();
}

}  // namespace needle::cli
