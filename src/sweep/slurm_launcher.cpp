#include "sweep/slurm_launcher.h"

#include "common/input_file.h"
#include "common/json_input.h"
#include "common/publish.h"
#include "sweep/point_runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace npu::sweep {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kCommandTimeoutMs = 60000;
constexpr int kSqueueFailuresAllowed = 10;

// A word for the shell, single-quoted.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "no message" : line;
}

} // namespace

std::vector<std::vector<size_t>> make_chunks(const std::vector<size_t>& todo,
                                             size_t points_per_task) {
  constexpr size_t kDefaultTasks = 100;
  if (points_per_task == 0)
    points_per_task = std::max<size_t>(1, (todo.size() + kDefaultTasks - 1) / kDefaultTasks);
  std::vector<std::vector<size_t>> chunks;
  for (size_t i = 0; i < todo.size(); i += points_per_task)
    chunks.emplace_back(
        todo.begin() + static_cast<std::ptrdiff_t>(i),
        todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), i + points_per_task)));
  return chunks;
}

std::string job_script(const std::string& name, const std::string& exe, const fs::path& out_dir,
                       const std::string& cwd, size_t chunks, const SlurmOptions& options) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# npusim sweep '" << name << "': one array task per chunk of points.\n"
    << "#SBATCH --job-name=" << quoted("npusim-" + name) << "\n"
    << "#SBATCH --array=0-" << chunks - 1 << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=1\n"
    << "#SBATCH --chdir=" << quoted(cwd) << "\n"
    << "#SBATCH --output=" << quoted((out_dir / "slurm" / "task-%a.out").string()) << "\n";
  if (!options.partition.empty())
    s << "#SBATCH --partition=" << quoted(options.partition) << "\n";
  if (!options.time_limit.empty())
    s << "#SBATCH --time=" << quoted(options.time_limit) << "\n";
  s << "exec " << quoted(exe) << " sweep worker " << quoted(out_dir.string())
    << " --chunk \"$SLURM_ARRAY_TASK_ID\"\n";
  return s.str();
}

std::string submit_job(const fs::path& out_dir, const std::string& name, const std::string& cwd,
                       const std::vector<std::vector<size_t>>& chunks,
                       const SlurmOptions& options) {
  const fs::path dir = out_dir / "slurm";
  fs::create_directories(dir);
  write_file_atomically(dir / "chunks.json", nlohmann::json({{"chunks", chunks}}).dump() + "\n");
  const fs::path script = dir / "sweep.sbatch";
  write_file_atomically(script, job_script(name, self_exe(), out_dir, cwd, chunks.size(), options));
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add);

  std::vector<std::string> argv{"sbatch", "--parsable"};
  argv.insert(argv.end(), options.sbatch_args.begin(), options.sbatch_args.end());
  argv.push_back(script.string());
  const Captured c = run_capture(argv, kCommandTimeoutMs);
  if (c.timed_out)
    throw std::runtime_error("sbatch did not answer within 60 s");
  if (c.exit_code != 0)
    throw std::runtime_error(fmt::format("sbatch failed (exit {}): {}", c.exit_code,
                                         first_line(c.err.empty() ? c.out : c.err)));
  // --parsable prints "jobid" or "jobid;cluster".
  std::string id = c.out.substr(0, c.out.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch printed no job id: " + first_line(c.out));
  write_file_atomically(dir / "job_id", id + "\n");
  return id;
}

void wait_for_job(const std::string& job_id, uint64_t poll_ms,
                  const std::function<void()>& on_poll) {
  int failures = 0;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    const Captured c = run_capture({"squeue", "--noheader", "--jobs", job_id, "--format", "%A"},
                                   kCommandTimeoutMs);
    on_poll();
    if (!c.timed_out && c.exit_code == 0) {
      failures = 0;
      if (c.out.find_first_not_of(" \n") == std::string::npos)
        return;
      continue;
    }
    // A job that has ended long ago is unknown to squeue.
    if (c.err.find("Invalid job id") != std::string::npos)
      return;
    if (++failures >= kSqueueFailuresAllowed)
      throw std::runtime_error(fmt::format(
          "squeue failed {} times in a row ({}); job {} may still run: collect its results "
          "later with `npusim sweep collect`",
          failures, c.timed_out ? "no answer within 60 s" : first_line(c.err), job_id));
  }
}

std::vector<size_t> read_chunk(const fs::path& out_dir, size_t chunk) {
  const fs::path file = out_dir / "slurm" / "chunks.json";
  const nlohmann::ordered_json j =
      parse_json_or_discarded(read_input_file(file.string(), "the chunks.json of an npusim sweep"));
  const SourceLoc loc{file.string(), 0, 0};
  if (j.is_discarded() || !j.is_object() || !j.contains("chunks") || !j["chunks"].is_array())
    throw InputError(loc, "", "expected {\"chunks\": [[point, ...], ...]}");
  if (chunk >= j["chunks"].size())
    throw InputError(loc, "chunks",
                     fmt::format("has {} chunks, not {}", j["chunks"].size(), chunk + 1));
  const nlohmann::ordered_json& points = j["chunks"][chunk];
  std::vector<size_t> out;
  for (const auto& p : points.is_array() ? points : nlohmann::ordered_json::array({nullptr})) {
    if (!p.is_number_unsigned())
      throw InputError(loc, fmt::format("chunks[{}]", chunk), "expected a list of point numbers");
    out.push_back(p.get<size_t>());
  }
  return out;
}

} // namespace npu::sweep
