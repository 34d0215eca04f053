#include "probe/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

extern char** environ;  // NOLINT: POSIX

namespace rocm_doctor::probe {

namespace {

using Clock = std::chrono::steady_clock;

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.release();
    }
    return *this;
  }
  [[nodiscard]] int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

bool make_pipe(Pipe& pipe) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  pipe.read = Fd(fds[0]);
  pipe.write = Fd(fds[1]);
  return true;
}

// The child's stdin when it gets input: a pipe whose write end (ours) does
// not block, so it is fed while the child's output is drained.
bool make_input_pipe(Pipe& channel) {
  return make_pipe(channel) && ::fcntl(channel.write.get(), F_SETFL, O_NONBLOCK) == 0;
}

// Writing to a pipe whose reader is gone raises SIGPIPE, which would end the
// whole doctor. While this thread feeds a child the signal is blocked here
// (it is sent to the writing thread), and one that arrived is taken off again
// before the mask is restored. Created after fork, so no child inherits it.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    ::sigemptyset(&pipe_);
    ::sigaddset(&pipe_, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
  }
  ~SigpipeBlocked() {
    sigset_t pending;
    ::sigemptyset(&pending);
    if (!::sigismember(&previous_, SIGPIPE) && ::sigpending(&pending) == 0 && ::sigismember(&pending, SIGPIPE) == 1) {
      const timespec now{};
      ::sigtimedwait(&pipe_, nullptr, &now);
    }
    ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t previous_{};
};

// Writes what the pipe takes now; closes our end when everything went or
// the child stopped reading (its stdin then ends).
void feed_input(Fd& channel, const std::string& input, std::size_t& written) {
  while (written < input.size()) {
    const ssize_t count = ::write(channel.get(), input.data() + written, input.size() - written);
    if (count > 0) {
      written += static_cast<std::size_t>(count);
      continue;
    }
    if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    break;  // EPIPE: the child is not reading any more
  }
  channel.reset();
}

// The environment for the child: ours, with extra_env added or replacing.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& item : extra) replaced = replaced || item.substr(0, item.find('=')) == name;
    if (!replaced) result.emplace_back(text);
  }
  result.insert(result.end(), extra.begin(), extra.end());
  return result;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

// In the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const char* path, char* const* argv, char* const* envp, int in_fd, int out_fd, int err_fd,
                             int status_fd) {
  ::setpgid(0, 0);
  ::signal(SIGPIPE, SIG_DFL);
  if (::dup2(in_fd, STDIN_FILENO) < 0 || ::dup2(out_fd, STDOUT_FILENO) < 0 || ::dup2(err_fd, STDERR_FILENO) < 0) {
    const int error = errno;
    [[maybe_unused]] auto ignored = ::write(status_fd, &error, sizeof error);
    ::_exit(127);
  }
  ::execve(path, argv, envp);
  const int error = errno;
  [[maybe_unused]] auto ignored = ::write(status_fd, &error, sizeof error);
  ::_exit(127);
}

enum class Read { data, again, eof };

// Reads what is available into `sink`: the first `keep` bytes, or (tail) the last ones.
Read drain(int fd, std::string& sink, std::size_t keep, bool tail, bool& truncated, std::size_t& total) {
  std::array<char, 64 * 1024> buffer{};
  const ssize_t count = ::read(fd, buffer.data(), buffer.size());
  if (count < 0) return errno == EINTR || errno == EAGAIN ? Read::again : Read::eof;
  if (count == 0) return Read::eof;
  const auto size = static_cast<std::size_t>(count);
  total += size;
  if (tail) {
    sink.append(buffer.data(), size);
    if (sink.size() > 2 * keep) sink.erase(0, sink.size() - keep);
  } else {
    const auto room = keep - std::min(keep, sink.size());
    sink.append(buffer.data(), std::min(room, size));
    truncated = truncated || size > room;
  }
  return Read::data;
}

void record_status(ChildResult& result, int status) {
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
}

// Waits for the exec to succeed (the status pipe closes) or fail (errno arrives).
std::optional<int> exec_errno(int status_fd) {
  int error = 0;
  ssize_t count = 0;
  do {
    count = ::read(status_fd, &error, sizeof error);
  } while (count < 0 && errno == EINTR);
  if (count == static_cast<ssize_t>(sizeof error)) return error;
  return std::nullopt;
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& options) {
  ChildResult result;
  const auto start = Clock::now();
  const auto finish = [&] {
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    return result;
  };
  if (argv.empty()) {
    result.exec_error = "no program given";
    return finish();
  }
  // Everything the child needs is prepared before fork.
  auto args = argv;
  auto env = child_environment(options.extra_env);
  const auto arg_pointers = pointers(args);
  const auto env_pointers = pointers(env);
  Pipe out;
  Pipe err;
  Pipe status;
  Pipe input;  // read: the child's stdin; write: ours, when there is input
  if (options.input) {
    if (!make_input_pipe(input)) {
      result.exec_error = std::string("cannot create the input pipe: ") + std::strerror(errno);
      return finish();
    }
  } else {
    input.read = Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  }
  if (!make_pipe(out) || !make_pipe(err) || !make_pipe(status) || input.read.get() < 0) {
    result.exec_error = std::string("cannot create pipes: ") + std::strerror(errno);
    return finish();
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.exec_error = std::string("fork failed: ") + std::strerror(errno);
    return finish();
  }
  if (pid == 0) {
    exec_child(arg_pointers[0], arg_pointers.data(), env_pointers.data(), input.read.get(), out.write.get(),
               err.write.get(), status.write.get());
  }
  ::setpgid(pid, pid);  // also done in the child: whichever runs first wins, both agree
  out.write.reset();
  err.write.reset();
  status.write.reset();
  input.read.reset();
  if (const auto error = exec_errno(status.read.get())) {
    int wait_status = 0;
    while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
    result.exec_error = std::string("cannot run ") + argv[0] + ": " + std::strerror(*error);
    return finish();
  }
  result.started = true;

  const auto deadline = start + options.timeout;
  bool out_open = true;
  bool err_open = true;
  bool reaped = false;
  bool err_truncated_unused = false;
  std::size_t out_total = 0;
  static const std::string no_input;
  const std::string& input_data = options.input ? *options.input : no_input;
  std::optional<SigpipeBlocked> sigpipe_blocked;
  if (input.write.get() >= 0) {
    sigpipe_blocked.emplace();
    feed_input(input.write, input_data, result.in_written);
  }
  while (!reaped) {
    int wait_status = 0;
    const pid_t done = ::waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) {
      record_status(result, wait_status);
      reaped = true;
    }
    const auto now = Clock::now();
    const bool cancelled = options.cancel != nullptr && options.cancel->load();
    if (!reaped && (now >= deadline || cancelled)) {
      result.timed_out = !cancelled;
      result.cancelled = cancelled;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
      }
      record_status(result, wait_status);
      reaped = true;
      break;
    }
    const bool feeding = input.write.get() >= 0;
    std::array<pollfd, 3> fds{{{out_open ? out.read.get() : -1, POLLIN, 0},
                               {err_open ? err.read.get() : -1, POLLIN, 0},
                               {feeding ? input.write.get() : -1, POLLOUT, 0}}};
    // Short polls: the child may exit while a grandchild keeps the pipes open.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int wait_ms = reaped ? 0 : static_cast<int>(std::clamp<long long>(left, 0, 20));
    if (!out_open && !err_open && !feeding) {
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      continue;
    }
    if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) break;
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      out_open = drain(out.read.get(), result.out, options.stdout_limit, options.stdout_keep_tail, result.out_truncated,
                       out_total) != Read::eof;
    }
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      err_open = drain(err.read.get(), result.err_tail, options.stderr_tail, true, err_truncated_unused,
                       result.err_bytes) != Read::eof;
    }
    if (feeding && (fds[2].revents & (POLLOUT | POLLHUP | POLLERR)) != 0) {
      feed_input(input.write, input_data, result.in_written);
    }
  }
  // Whatever the child left in the pipes after it ended (without blocking).
  if (!result.timed_out && !result.cancelled) {
    ::fcntl(out.read.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(err.read.get(), F_SETFL, O_NONBLOCK);
    Read state = Read::data;
    while (out_open && state == Read::data) {
      state = drain(out.read.get(), result.out, options.stdout_limit, options.stdout_keep_tail, result.out_truncated,
                    out_total);
    }
    out_open = state != Read::eof;
    state = Read::data;
    while (err_open && state == Read::data) {
      state = drain(err.read.get(), result.err_tail, options.stderr_tail, true, err_truncated_unused, result.err_bytes);
    }
    err_open = state != Read::eof;
    // A pipe still open means something the probe started outlived it: end its group.
    if (out_open || err_open) ::kill(-pid, SIGKILL);
  }
  if (options.stdout_keep_tail && result.out.size() > options.stdout_limit) {
    result.out.erase(0, result.out.size() - options.stdout_limit);
  }
  if (options.stdout_keep_tail) result.out_truncated = out_total > options.stdout_limit;
  if (result.err_tail.size() > options.stderr_tail) {
    result.err_tail.erase(0, result.err_tail.size() - options.stderr_tail);
  }
  return finish();
}

}  // namespace rocm_doctor::probe
