/*
 * cli/load: every mistake the scenario format names gives an error at its
 * place. Each tests/data/load/bad_*.yaml gives exactly the
 * FILE:LINE:COL: error lines listed here, all of them and nothing else,
 * and the loader returns a released scenario.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/diag.h"
#include "load/load.h"

#define DATA_DIR MCSIM_SOURCE_DIR "/tests/data/load/"

struct bad_case {
    const char *file;
    const char *lines[64]; /* NULL-terminated, without the directory */
};

static const struct bad_case bad_cases[] = {
    {"bad_budget.yaml",
     {"bad_budget.yaml:5:16: error: notification 'n1' has a budget but no period "
      "(expected both budget and period)",
      "bad_budget.yaml:6:16: error: notification 'n2' has a period but no budget "
      "(expected both budget and period)",
      "bad_budget.yaml:7:18: error: notification 'n3' has 'sporadic' but no budget "
      "and period (expected budget and period with it)",
      "bad_budget.yaml:9:45: error: budget of thread 'a' (12ms) is longer than its "
      "period (10ms) (expected budget <= period)",
      "bad_budget.yaml:10:45: error: budget of thread 'b' (10us = 10000 cycles) is "
      "less than MIN_BUDGET (20000 cycles) (expected at least kernel.min_budget)",
      "bad_budget.yaml:11:45: error: thread 'c' has a budget but no period (expected "
      "both budget and period)",
      "bad_budget.yaml:12:45: error: thread 'd' has a period but no budget (expected "
      "both budget and period)",
      "bad_budget.yaml:13:3: error: thread 'e' has no scheduling context (expected "
      "budget and period, or passive: true)",
      "bad_budget.yaml:14:45: error: budget of thread 'f' is 0 (expected a duration "
      "of more than 0)",
      "bad_budget.yaml:14:56: error: period of thread 'f' is 0 (expected a duration "
      "of more than 0)",
      NULL}},
    {"bad_criticality.yaml",
     {"bad_criticality.yaml:5:33: error: criticality of thread 'a' is 'hi' (expected "
      "low or high)",
      "bad_criticality.yaml:7:35: error: criticality of expectation 1 is 'lo'; did you mean "
      "'low'? (expected low or high)",
      NULL}},
    {"bad_dangling.yaml",
     {"bad_dangling.yaml:6:31: error: notification of device 'net' names 'rxx', "
      "which is not a declared notification; did you mean 'rx'? (expected one of: rx)",
      "bad_dangling.yaml:13:23: error: timeout_endpoint of thread 'a' names "
      "'faults', which is not a declared endpoint (expected one of: sensor)",
      "bad_dangling.yaml:15:15: error: call in thread 'a' names 'sensro', which is "
      "not a declared endpoint; did you mean 'sensor'? (expected one of: sensor)",
      "bad_dangling.yaml:16:15: error: wait in thread 'a' names 'sensor', which is "
      "an endpoint, not a notification (expected the name of a notification)",
      "bad_dangling.yaml:17:18: error: irq_ack in thread 'a' names 'disk', which is "
      "not a declared device (expected one of: net)",
      "bad_dangling.yaml:19:28: error: thread of expectation 1 names 'b', which is "
      "not a declared thread; did you mean 'a'? (expected one of: a)",
      "bad_dangling.yaml:20:34: error: device of expectation 2 names 'sensor', which "
      "is an endpoint, not a device (expected the name of a device)",
      NULL}},
    {"bad_devices.yaml",
     {"bad_devices.yaml:5:53: error: periodic arrivals of device 'a' is 0 (expected "
      "a duration of more than 0)",
      "bad_devices.yaml:6:53: error: time 2 in at of device 'b' (1ms) is earlier "
      "than the time before it (2ms) (expected times in ascending order)",
      "bad_devices.yaml:7:69: error: max of sporadic arrivals of device 'c' is 0 "
      "(expected a duration of more than 0)",
      "bad_devices.yaml:8:42: error: arrivals of device 'd' have no form (expected "
      "one of {periodic: 1ms}, {periodic: 1ms, jitter: 50us}, {sporadic: {min: 1ms, "
      "max: 3ms}}, {at: [1ms, 9ms]}, {burst: {every: 10ms, count: 4, gap: 20us}})",
      "bad_devices.yaml:9:62: error: arrivals of device 'e' have a jitter but are "
      "not periodic (expected jitter only with periodic)",
      "bad_devices.yaml:10:6: error: device 'f' is missing 'notification' (expected "
      "notification: the notification its interrupt signals)",
      "bad_devices.yaml:10:53: error: count of burst arrivals of device 'f' is '0' "
      "(expected a whole number from 1 to 4294967295)",
      NULL}},
    {"bad_duplicate_key.yaml",
     {"bad_duplicate_key.yaml:7:5: error: duplicate key 'priority' in thread 'a' "
      "(first at 5:5; expected each key once)",
      "bad_duplicate_key.yaml:11:3: error: duplicate thread 'a' (first at 4:3; "
      "expected each name once)",
      "bad_duplicate_key.yaml:12:1: error: duplicate key 'duration' in the scenario "
      "(first at 2:1; expected each key once)",
      NULL}},
    {"bad_duration.yaml",
     {"bad_duration.yaml:2:11: error: duration is 0 (expected a duration of more "
      "than 0)",
      NULL}},
    {"bad_empty.yaml",
     {"bad_empty.yaml:1:1: error: the file has no scenario in it (expected a "
      "scenario: a mapping starting with mcsim: 1)",
      NULL}},
    {"bad_expect.yaml",
     {"bad_expect.yaml:9:21: error: event of expectation 1 is 'throttles'; did you mean "
      "'throttle'? (expected one of: throttle, replenish, timeout_fault, emergency, preempt, irq, "
      "irq_lost, call_aborted, deadline_miss, job)",
      "bad_expect.yaml:10:13: error: count of expectation 2 has no bound (expected "
      "at_least: N, at_most: N or both)",
      "bad_expect.yaml:11:39: error: expectation 3 filters by device, but event "
      "throttle is not an interrupt (expected device only with irq or irq_lost)",
      "bad_expect.yaml:12:54: error: at_least of expectation 4 (3) is more than its "
      "at_most (1) (expected at_least <= at_most)",
      "bad_expect.yaml:13:33: error: scheduler of expectation 5 is 'edf' (expected "
      "mcs or classic)",
      "bad_expect.yaml:14:17: error: deadlines of expectation 6 is 'sometimes' "
      "(expected met or missed)",
      "bad_expect.yaml:15:34: error: expectation 7 is a budget check and cannot take "
      "threads (expected threads only with deadlines)",
      "bad_expect.yaml:16:20: error: max_response of expectation 8 is missing "
      "'at_most' (expected at_most: the longest response)",
      "bad_expect.yaml:17:5: error: unknown key 'deadline' in expectation 9; did you "
      "mean 'deadlines'? (expected one of: deadlines, criticality, threads, "
      "max_response, count, budget, scheduler)",
      NULL}},
    {"bad_irq.yaml",
     {"bad_irq.yaml:6:12: error: irq 5 of device 'b' is already the line of device "
      "'a' at 5:3 (expected a line of its own)",
      "bad_irq.yaml:7:12: error: irq of device 'c' is '1024' (expected a whole number "
      "from 0 to 1023)",
      NULL}},
    {"bad_many.yaml",
     {"bad_many.yaml:1:8: error: format version 2 is not supported (expected mcsim: "
      "1)",
      "bad_many.yaml:3:7: error: seed is '-3' (expected a whole number)",
      "bad_many.yaml:4:11: error: duration is '200': a number other than 0 needs a "
      "unit (expected a number and one of the units s, ms, us, ns, c, as in 250us or "
      "1.5ms)",
      "bad_many.yaml:6:11: error: platform.cpu_hz is '1.5Hz': it is not a whole "
      "number of Hz (expected a whole number of hertz, as in 62.5MHz = 62500000Hz)",
      "bad_many.yaml:7:13: error: platform.timer_hz (2GHz) is faster than "
      "platform.cpu_hz (1000000000 Hz) (expected timer_hz <= cpu_hz)",
      "bad_many.yaml:8:25: error: platform.kernel_costs.entry is '12.5' (expected a "
      "whole number from 0 to 4294967295)",
      "bad_many.yaml:8:31: error: unknown key 'exitt' in platform.kernel_costs; did "
      "you mean 'exit'? (expected one of: entry, exit, syscall, ipc, schedule, "
      "timer_program, irq, tick)",
      "bad_many.yaml:9:21: error: kernel.scheduler is 'edf' (expected mcs or classic)",
      "bad_many.yaml:9:38: error: kernel.priorities is '300' (expected a whole "
      "number from 1 to 256)",
      "bad_many.yaml:9:55: error: kernel.min_budget is 'often': it does not start "
      "with a number (expected a number and one of the units s, ms, us, ns, c, as in "
      "250us or 1.5ms)",
      "bad_many.yaml:9:68: error: kernel.tick is 0 (expected a duration of more than "
      "0)",
      "bad_many.yaml:10:23: error: criticality level 'lo' is listed twice (expected "
      "each level once)",
      "bad_many.yaml:11:21: error: endpoint name is 'Faults' (expected a name of "
      "lower-case letters, digits and _, starting with a letter, as in net_driver)",
      "bad_many.yaml:11:29: error: duplicate endpoint 'sensor' (first at 11:13; "
      "expected each name once)",
      "bad_many.yaml:13:20: error: notification 'net_rx' has a budget but no period "
      "(expected both budget and period)",
      "bad_many.yaml:14:3: error: name 'sensor' of this notification is already used "
      "by the endpoint at 11:13 (threads, endpoints, notifications and devices share "
      "one namespace; expected a different name)",
      "bad_many.yaml:16:14: error: irq of device 'net' is '3000' (expected a whole "
      "number from 0 to 1023)",
      "bad_many.yaml:16:72: error: arrivals of device 'net' have more than one form "
      "(expected exactly one of: periodic, sporadic, at, burst)",
      "bad_many.yaml:17:32: error: notification of device 'disk' names 'nope', which "
      "is not a declared notification (expected one of: net_rx, sensor)",
      "bad_many.yaml:17:84: error: a burst of device 'disk' is 4 arrivals 500us "
      "apart, which does not end before the next burst 1ms later (expected (count - "
      "1) x gap < every)",
      "bad_many.yaml:18:16: error: irq 4 of device 'disk2' is already the line of "
      "device 'disk' at 17:3 (expected a line of its own)",
      "bad_many.yaml:18:68: error: min of sporadic arrivals of device 'disk2' (3ms) "
      "is more than max (1ms) (expected min <= max)",
      "bad_many.yaml:18:93: error: offset of device 'disk2' is '1': a number other "
      "than 0 needs a unit (expected a number and one of the units s, ms, us, ns, c, "
      "as in 250us or 1.5ms)",
      "bad_many.yaml:21:15: error: priority of thread 'control' is '256' (expected a "
      "whole number from 0 to 255)",
      "bad_many.yaml:22:5: error: unknown key 'priorty' in thread 'control'; did you "
      "mean 'priority'? (expected one of: priority, mcp, criticality, budget, "
      "period, extra_refills, sporadic, deadline, start, timeout_endpoint, passive, "
      "program, label)",
      "bad_many.yaml:24:13: error: budget of thread 'control' (12ms) is longer than "
      "its period (10ms) (expected budget <= period)",
      "bad_many.yaml:27:24: error: min of compute in thread 'control' (3ms) is more "
      "than its max (1ms) (expected min <= max)",
      "bad_many.yaml:28:15: error: call in thread 'control' names 'sensr', which is "
      "not a declared endpoint; did you mean 'sensor'? (expected one of: sensor)",
      "bad_many.yaml:30:9: error: unknown step 'comput' in the program of thread "
      "'control'; did you mean 'compute'? (expected compute, job, loop, repeat, "
      "yield, call, send, nbsend, recv, reply, reply_recv, signal, wait, poll, "
      "irq_ack, handle_timeouts or serve)",
      "bad_many.yaml:31:15: error: job in thread 'control' is inside another job "
      "(expected jobs side by side, not one in another)",
      "bad_many.yaml:32:9: error: loop in thread 'control' would repeat for ever at "
      "one instant (expected a compute of more than 0 or a kernel operation in it)",
      "bad_many.yaml:33:25: error: count of repeat in thread 'control' is '-1' "
      "(expected a whole number from 0 to 4294967295)",
      "bad_many.yaml:33:33: error: repeat in thread 'control' is empty (expected at "
      "least one step)",
      "bad_many.yaml:34:37: error: endpoint of handle_timeouts in thread 'control' "
      "names 'net_rx', which is a notification, not an endpoint (expected the name "
      "of an endpoint)",
      "bad_many.yaml:34:72: error: emergency_budget of action of handle_timeouts in "
      "thread 'control' is 0 (expected a duration of more than 0)",
      "bad_many.yaml:35:9: error: step 'call' in thread 'control' needs an argument "
      "(expected call: followed by its value, as in {call: ...})",
      "bad_many.yaml:36:16: error: yield in thread 'control' takes no argument "
      "(expected the plain step 'yield')",
      "bad_many.yaml:41:13: error: thread 'server' is passive and has 'budget' (a "
      "passive thread runs on the contexts of others; expected either passive: true "
      "or budget and period, not both)",
      "bad_many.yaml:42:15: error: passive thread 'server' starts with 'compute', "
      "but it has no scheduling context to run it on (expected its first step to be "
      "recv on an endpoint, or wait on a notification with a scheduling context of "
      "its own)",
      "bad_many.yaml:43:3: error: thread 'lazy' has no scheduling context (expected "
      "budget and period, or passive: true)",
      "bad_many.yaml:45:48: error: expectation 1 has both criticality and threads "
      "(expected one of the two, or neither for every thread)",
      "bad_many.yaml:46:13: error: count of expectation 2 has no bound (expected "
      "at_least: N, at_most: N or both)",
      "bad_many.yaml:46:39: error: expectation 2 filters by device, but event "
      "throttle is not an interrupt (expected device only with irq or irq_lost)",
      "bad_many.yaml:47:29: error: thread of expectation 3 names 'nobody', which is "
      "not a declared thread (expected one of: control, server, lazy)",
      "bad_many.yaml:47:63: error: scheduler of expectation 3 is 'edf' (expected mcs "
      "or classic)",
      "bad_many.yaml:48:14: error: expectation 4 checks deadlines and budget at once "
      "(expected exactly one of: deadlines, max_response, count, budget; write two "
      "expectations)",
      "bad_many.yaml:49:5: error: expectation 5 says nothing to check (expected one "
      "of: deadlines, max_response, count, budget)",
      NULL}},
    {"bad_missing.yaml",
     {"bad_missing.yaml:2:1: error: the scenario is missing 'mcsim' (expected mcsim: "
      "1, the format version, as its first line)",
      "bad_missing.yaml:2:1: error: the scenario is missing 'duration' (expected "
      "duration: the simulated time to run, such as 200ms)",
      "bad_missing.yaml:3:6: error: thread 'a' is missing 'priority' (expected "
      "priority: a whole number from 0 to 255)",
      "bad_missing.yaml:3:6: error: thread 'a' is missing 'criticality' (expected "
      "criticality: one of the criticality levels)",
      "bad_missing.yaml:3:6: error: thread 'a' is missing 'program' (expected "
      "program: a list of steps)",
      NULL}},
    {"bad_names.yaml",
     {"bad_names.yaml:3:13: error: endpoint name is 'Sensor' (expected a name of "
      "lower-case letters, digits and _, starting with a letter, as in net_driver)",
      "bad_names.yaml:3:21: error: endpoint name is '9lives' (expected a name of "
      "lower-case letters, digits and _, starting with a letter, as in net_driver)",
      "bad_names.yaml:3:29: error: endpoint name "
      "'a_name_that_is_far_too_long_to_be_a_name...' is 69 characters long (expected "
      "a name of at most 63 characters)",
      "bad_names.yaml:5:3: error: thread name is 'net-driver' (expected a name of "
      "lower-case letters, digits and _, starting with a letter, as in net_driver)",
      NULL}},
    {"bad_namespace.yaml",
     {"bad_namespace.yaml:3:17: error: duplicate endpoint 'ep' (first at 3:13; "
      "expected each name once)",
      "bad_namespace.yaml:6:3: error: name 'net' of this device is already used by "
      "the endpoint at 3:21 (threads, endpoints, notifications and devices share one "
      "namespace; expected a different name)",
      "bad_namespace.yaml:8:3: error: name 'n' of this thread is already used by the "
      "notification at 4:17 (threads, endpoints, notifications and devices share one "
      "namespace; expected a different name)",
      NULL}},
    {"bad_passive.yaml",
     {"bad_passive.yaml:6:69: error: passive thread 'computes' starts with "
      "'compute', but it has no scheduling context to run it on (expected its first "
      "step to be recv on an endpoint, or wait on a notification with a scheduling "
      "context of its own)",
      "bad_passive.yaml:7:73: error: passive thread 'waits' first waits on "
      "notification 'plain', which has no scheduling context of its own, so nothing "
      "could run the thread (expected recv on an endpoint, or wait on a notification "
      "with budget and period)",
      "bad_passive.yaml:8:63: error: thread 'both' is passive and has 'budget' (a "
      "passive thread runs on the contexts of others; expected either passive: true "
      "or budget and period, not both)",
      "bad_passive.yaml:8:76: error: thread 'both' is passive and has 'period' (a "
      "passive thread runs on the contexts of others; expected either passive: true "
      "or budget and period, not both)",
      NULL}},
    {"bad_priority.yaml",
     {"bad_priority.yaml:5:17: error: priority of thread 'a' is '16' (expected a "
      "whole number from 0 to 15)",
      "bad_priority.yaml:5:26: error: mcp of thread 'a' is '99' (expected a whole "
      "number from 0 to 15)",
      "bad_priority.yaml:6:17: error: priority of thread 'b' is '-1' (expected a "
      "whole number from 0 to 15)",
      NULL}},
    {"bad_second_doc.yaml",
     {"bad_second_doc.yaml:7:1: error: invalid YAML: did not find expected ',' or '}' "
      "(while parsing a flow mapping at 6:9)",
      NULL}},
    {"bad_steps.yaml",
     {"bad_steps.yaml:11:9: error: unknown step 'wiat' in the program of thread 't'; "
      "did you mean 'wait'? (expected compute, job, loop, repeat, yield, call, send, "
      "nbsend, recv, reply, reply_recv, signal, wait, poll, irq_ack, "
      "handle_timeouts or serve)",
      "bad_steps.yaml:12:9: error: step 'call' in thread 't' needs an argument "
      "(expected call: followed by its value, as in {call: ...})",
      "bad_steps.yaml:13:25: error: min of compute in thread 't' (2ms) is more than "
      "its max (1ms) (expected min <= max)",
      "bad_steps.yaml:15:9: error: 'call' is in the same list item as 'compute' in "
      "the program of thread 't' (expected one step per list item, each starting "
      "with '- ')",
      "bad_steps.yaml:16:15: error: job in thread 't' is inside another job "
      "(expected jobs side by side, not one in another)",
      "bad_steps.yaml:17:9: error: loop in thread 't' would repeat for ever at one "
      "instant (expected a compute of more than 0 or a kernel operation in it)",
      "bad_steps.yaml:18:17: error: repeat in thread 't' is missing 'do' (expected "
      "do: the list of steps to repeat)",
      "bad_steps.yaml:19:14: error: job in thread 't' is empty (expected at least "
      "one step)",
      NULL}},
    {"bad_timeouts.yaml",
     {"bad_timeouts.yaml:12:37: error: endpoint of handle_timeouts in thread 't' "
      "names 'n', which is a notification, not an endpoint (expected the name of an "
      "endpoint)",
      "bad_timeouts.yaml:12:48: error: action of handle_timeouts in thread 't' is "
      "'restart' (expected reset or inherit)",
      "bad_timeouts.yaml:13:72: error: emergency_budget of action of handle_timeouts "
      "in thread 't' is 0 (expected a duration of more than 0)",
      "bad_timeouts.yaml:14:26: error: handle_timeouts in thread 't' is missing "
      "'action' (expected action: reset, inherit or {emergency_budget: D})",
      NULL}},
    {"bad_timer.yaml",
     {"bad_timer.yaml:3:39: error: platform.timer_hz (1GHz) is faster than "
      "platform.cpu_hz (62500000 Hz) (expected timer_hz <= cpu_hz)",
      NULL}},
    {"bad_types.yaml",
     {"bad_types.yaml:2:11: error: duration is a list (expected a duration such as "
      "250us, 1.5ms, 2s, 800ns or 1200c)",
      "bad_types.yaml:3:7: error: seed is the quoted text '7' (expected a whole "
      "number)",
      "bad_types.yaml:6:15: error: priority of thread 'a' is 'high' (expected a "
      "whole number from 0 to 255)",
      "bad_types.yaml:7:18: error: criticality of thread 'a' is a list (expected lo "
      "or hi)",
      "bad_types.yaml:10:15: error: sporadic of thread 'a' is 'yes' (expected true "
      "or false)",
      "bad_types.yaml:11:14: error: program of thread 'a' is 'yield' (expected a "
      "list of steps)",
      "bad_types.yaml:12:6: error: thread 'b' is '42' (expected a mapping with "
      "priority, criticality and program)",
      NULL}},
    {"bad_units.yaml",
     {"bad_units.yaml:2:11: error: duration is '10': a number other than 0 needs a "
      "unit (expected a number and one of the units s, ms, us, ns, c, as in 250us or "
      "1.5ms)",
      "bad_units.yaml:3:20: error: platform.cpu_hz is '1000': a frequency needs a "
      "unit (expected a number and one of the units Hz, kHz, MHz, GHz, as in 1GHz or "
      "62.5MHz)",
      "bad_units.yaml:3:36: error: platform.timer_hz is '62.5Hz': it is not a whole "
      "number of Hz (expected a whole number of hertz, as in 62.5MHz = 62500000Hz)",
      "bad_units.yaml:8:13: error: budget of thread 'a' is '1.5 ms': there is a "
      "space before the unit (expected the unit right after the number, as in 1.5ms "
      "or 62.5MHz)",
      "bad_units.yaml:9:13: error: period of thread 'a' is '10sec': unknown unit "
      "'sec'; did you mean 's'? (expected a number and one of the units s, ms, us, ns, c, "
      "as in 250us or 1.5ms)",
      "bad_units.yaml:10:12: error: start of thread 'a' is '0.1ns', less than one "
      "CPU cycle at 1000000000 Hz, so it rounds down to 0 (expected 0 or at least "
      "one cycle)",
      "bad_units.yaml:11:15: error: deadline of thread 'a' is '-1ms': a negative "
      "value is not allowed (expected a number and one of the units s, ms, us, ns, "
      "c, as in 250us or 1.5ms)",
      "bad_units.yaml:12:25: error: compute in thread 'a' is '.5ms': it does not "
      "start with a number (expected a number and one of the units s, ms, us, ns, c, "
      "as in 250us or 1.5ms)",
      "bad_units.yaml:12:42: error: compute in thread 'a' is "
      "'99999999999999999999s': the number has too many digits (expected at most 19 "
      "digits, at most 18 after the decimal point)",
      NULL}},
    {"bad_unknown_key.yaml",
     {"bad_unknown_key.yaml:3:1: error: unknown key 'platfrom' in the scenario; did "
      "you mean 'platform'? (expected one of: mcsim, name, description, seed, "
      "duration, platform, kernel, criticality, endpoints, notifications, threads, "
      "devices, expect)",
      "bad_unknown_key.yaml:10:5: error: unknown key 'dedline' in thread 'a'; did "
      "you mean 'deadline'? (expected one of: priority, mcp, criticality, budget, "
      "period, extra_refills, sporadic, deadline, start, timeout_endpoint, passive, "
      "program, label)",
      NULL}},
    {"bad_version.yaml",
     {"bad_version.yaml:1:8: error: format version 2 is not supported (expected "
      "mcsim: 1)",
      NULL}},
    /* bad indentation: libyaml's error, and a hint naming the line to blame */
    {"bad_indent_under.yaml",
     {"bad_indent_under.yaml:9:4: error: invalid YAML: did not find expected key (while "
      "parsing a block mapping at 6:3); hint: " DATA_DIR "bad_indent_under.yaml:9:4 is "
      "indented 3 spaces, lining up with no block above it (the block from 7:5 is indented "
      "4, the one from 6:3 2): indent it as the lines it belongs with",
      NULL}},
    {"bad_indent_over.yaml",
     {"bad_indent_over.yaml:9:13: error: invalid YAML: mapping values are not allowed in "
      "this context; hint: " DATA_DIR "bad_indent_over.yaml:9:7 is indented 6 spaces, "
      "deeper than the key above it at 8:5, which has its value already, so YAML reads the "
      "line as more of that value: indent it as the lines it belongs with",
      NULL}},
    {"bad_indent_item.yaml",
     {"bad_indent_item.yaml:13:9: error: invalid YAML: did not find expected key (while "
      "parsing a block mapping at 11:9); hint: " DATA_DIR "bad_indent_item.yaml:13:9 is a "
      "list item lined up with the keys of the mapping from 11:9: indent it as the items of "
      "its list",
      NULL}},
    /* a syntax error with the indentation right: no hint */
    {"bad_yaml_syntax.yaml",
     {"bad_yaml_syntax.yaml:5:4: error: invalid YAML: did not find expected ',' or "
      "'}' (while parsing a flow mapping at 4:6)",
      NULL}},
};

static char *data_path(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s%s", DATA_DIR, name);
    return path;
}

/* Compare the messages of `d` (directory stripped) with `want`. */
static void check_lines(const struct diag *d, const char *const *want, const char *file)
{
    size_t n_want = 0, dir_len = strlen(DATA_DIR);
    bool same = true;
    char line[1024];
    while (want[n_want])
        n_want++;
    same = diag_count(d) == n_want && diag_errors(d) == n_want;
    for (size_t i = 0; same && i < n_want; i++) {
        diag_format(&d->msgs[i], line, sizeof line);
        same = strncmp(line, DATA_DIR, dir_len) == 0 && strcmp(line + dir_len, want[i]) == 0;
    }
    if (same)
        return;
    print_error("%s: expected:\n", file);
    for (size_t i = 0; i < n_want; i++)
        print_error("  %s\n", want[i]);
    print_error("actual:\n");
    for (size_t i = 0; i < diag_count(d); i++) {
        diag_format(&d->msgs[i], line, sizeof line);
        print_error("  %s\n", line);
    }
    fail_msg("%s: the errors differ", file);
}

static void test_load_errors_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        struct scenario s;
        struct diag d;
        diag_init(&d);
        assert_int_equal(load_scenario(data_path(bad_cases[i].file), &s, &d), -1);
        check_lines(&d, bad_cases[i].lines, bad_cases[i].file);
        assert_null(s.threads); /* released on error */
        assert_null(s.path);
        assert_int_equal(s.n_threads, 0);
        diag_release(&d);
    }
}

/* Every test file is there: a bad file without a case is a forgotten test. */
static void test_load_errors_all_listed(void **state)
{
    (void)state;
    DIR *dir = opendir(DATA_DIR);
    struct dirent *e;
    size_t found = 0;
    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        if (strncmp(e->d_name, "bad_", 4) != 0)
            continue;
        bool listed = false;
        for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
            listed |= strcmp(bad_cases[i].file, e->d_name) == 0;
        if (!listed)
            fail_msg("%s has no case in test_load.c", e->d_name);
        found++;
    }
    closedir(dir);
    assert_int_equal(found, sizeof bad_cases / sizeof bad_cases[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_errors_files),
        cmocka_unit_test(test_load_errors_all_listed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
