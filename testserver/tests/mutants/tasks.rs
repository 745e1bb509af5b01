//! Mutants of tasks: progress dropped with the task, `tasks/cancel` on a terminal task or
//! answered before the transition, `tasks/result` left waiting.

use super::*;

#[tokio::test(start_paused = true)]
async fn task_progress_dropped_sends_no_progress_after_the_create_task_result() {
    check(
        Mutant::TaskProgressDropped,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2025_11_25);
            conn.initialize().await;
            let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 1000},
                "task": {"ttl": 60000}, "_meta": {"progressToken": "job-1"}});
            conn.send_request(json!(1), "tools/call", params).await;
            let mut seen = Vec::new();
            while let Some(message) = conn.try_recv(Duration::from_secs(10)).await {
                seen.push(match message["method"].as_str() {
                    Some(method) => format!(
                        "{method} {} {}",
                        message["params"]["progressToken"], message["params"]["progress"]
                    ),
                    None => format!("response to {}", message["id"]),
                });
            }
            let progress_sent = sent(&core)
                .iter()
                .filter(|message| message["method"] == "notifications/progress")
                .count();
            seen.push(format!("transcript: {progress_sent} progress"));
            seen
        },
        &[
            "response to 1",
            "notifications/progress \"job-1\" 1",
            "notifications/progress \"job-1\" 2",
            "transcript: 2 progress",
        ],
        &["response to 1", "transcript: 0 progress"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_cancel_terminal_accepted_answers_a_second_cancel() {
    check(
        Mutant::TaskCancelTerminalAccepted,
        |mutant| async move {
            let (core, mut conn, task) = slow_task(mutant).await;
            let first = conn.request(json!(2), "tasks/cancel", task.clone()).await;
            let again = conn.request(json!(3), "tasks/cancel", task).await;
            assert_sent_last(&core, &again);
            vec![
                format!("first: {}", first["result"]["status"]),
                format!(
                    "again: error {} status {}",
                    again["error"]["code"], again["result"]["status"]
                ),
            ]
        },
        &["first: \"cancelled\"", "again: error -32602 status null"],
        &[
            "first: \"cancelled\"",
            "again: error null status \"cancelled\"",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_cancelled_after_response_answers_with_the_working_task() {
    check(
        Mutant::TaskCancelledAfterResponse,
        |mutant| async move {
            let (core, mut conn, task) = slow_task(mutant).await;
            let cancelled = conn.request(json!(2), "tasks/cancel", task.clone()).await;
            assert_sent_last(&core, &cancelled);
            let polled = conn.request(json!(3), "tasks/get", task).await;
            core.handlers.wait_idle().await;
            let mut seen = vec![
                format!("tasks/cancel: {}", cancelled["result"]["status"]),
                format!("tasks/get: {}", polled["result"]["status"]),
            ];
            seen.extend(core.handlers.entries());
            seen
        },
        &[
            "tasks/cancel: \"cancelled\"",
            "tasks/get: \"cancelled\"",
            "slow#1 started as tsk-a0565851",
            "slow#1 stopped by cancel after step 0",
        ],
        &[
            "tasks/cancel: \"working\"",
            "tasks/get: \"cancelled\"",
            "slow#1 started as tsk-a0565851",
            "slow#1 stopped by cancel after step 0",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_result_left_waiting_never_answers_for_a_cancelled_task() {
    check(
        Mutant::TaskResultLeftWaiting,
        |mutant| async move {
            let (core, mut conn, task) = slow_task(mutant).await;
            conn.send_request(json!(2), "tasks/result", task.clone())
                .await;
            conn.send_request(json!(3), "tasks/cancel", task).await;
            let mut seen = Vec::new();
            while let Some(answer) = conn.try_recv(Duration::from_secs(60)).await {
                seen.push(format!(
                    "{}: error {} status {}",
                    answer["id"], answer["error"]["code"], answer["result"]["status"]
                ));
            }
            let answered_2 = sent(&core).iter().any(|message| message["id"] == 2);
            seen.push(format!("transcript answers 2: {answered_2}"));
            seen
        },
        &[
            "3: error null status \"cancelled\"",
            "2: error -32602 status null",
            "transcript answers 2: true",
        ],
        &[
            "3: error null status \"cancelled\"",
            "transcript answers 2: false",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_progress_sent_reports_progress_on_a_2026_task() {
    check(
        Mutant::TaskProgressSent,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
            let params = json!({"name": "slow", "arguments": {"steps": 2, "step_ms": 1000},
                "_meta": {"progressToken": "job-1",
                    "io.modelcontextprotocol/clientCapabilities": tasks}});
            conn.send_request(json!(1), "tools/call", params).await;
            let mut seen = Vec::new();
            while let Some(message) = conn.try_recv(Duration::from_secs(10)).await {
                seen.push(match message["method"].as_str() {
                    Some(method) => format!("{method} {}", message["params"]["progress"]),
                    None => format!(
                        "response to {}: {}",
                        message["id"], message["result"]["resultType"]
                    ),
                });
            }
            let progress_sent = sent(&core)
                .iter()
                .filter(|message| message["method"] == "notifications/progress")
                .count();
            seen.push(format!("transcript: {progress_sent} progress"));
            seen
        },
        &["response to 1: \"task\"", "transcript: 0 progress"],
        &[
            "response to 1: \"task\"",
            "notifications/progress 1",
            "notifications/progress 2",
            "transcript: 2 progress",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn cancelled_task_completes_when_its_work_runs_on() {
    check(
        Mutant::CancelledTaskCompletes,
        |mutant| async move {
            let (core, mut conn, task) = started_task(mutant, "ignore_cancel", 3).await;
            let cancelled = conn.request(json!(2), "tasks/cancel", task.clone()).await;
            core.handlers.wait_idle().await;
            let polled = conn.request(json!(3), "tasks/get", task).await;
            assert_sent_last(&core, &polled);
            let mut seen = vec![
                format!("tasks/cancel: {}", cancelled["result"]["status"]),
                format!(
                    "tasks/get after the work ended: {}",
                    polled["result"]["status"]
                ),
            ];
            seen.extend(core.handlers.entries());
            seen
        },
        &[
            "tasks/cancel: \"cancelled\"",
            "tasks/get after the work ended: \"cancelled\"",
            "ignore_cancel#1 started as tsk-a0565851",
            "ignore_cancel#1 ignored cancel at step 1",
        ],
        &[
            "tasks/cancel: \"cancelled\"",
            "tasks/get after the work ended: \"completed\"",
            "ignore_cancel#1 started as tsk-a0565851",
            "ignore_cancel#1 ignored cancel at step 1",
            "ignore_cancel#1 completed as tsk-a0565851",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_result_not_final_answers_a_finished_task_with_its_status() {
    check(
        Mutant::TaskResultNotFinal,
        |mutant| async move {
            let (core, mut conn, task) = started_task(mutant, "slow", 1).await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            let polled = conn.request(json!(2), "tasks/get", task.clone()).await;
            let result = conn.request(json!(3), "tasks/result", task).await;
            assert_sent_last(&core, &result);
            vec![
                format!("tasks/get: {}", polled["result"]["status"]),
                format!(
                    "tasks/result: {} status {}",
                    result["result"]["content"][0]["text"], result["result"]["status"]
                ),
            ]
        },
        &[
            "tasks/get: \"completed\"",
            "tasks/result: \"completed 1 steps\" status null",
        ],
        &[
            "tasks/get: \"completed\"",
            "tasks/result: null status \"completed\"",
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn unknown_task_cancel_acked_acknowledges_a_2026_cancel_of_no_task() {
    check(
        Mutant::UnknownTaskCancelAcked,
        |mutant| async move {
            let (core, mut conn) = start(mutant, Revision::V2026_07_28);
            let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
            let params = json!({"taskId": "tsk-00000000",
                "_meta": {"io.modelcontextprotocol/clientCapabilities": tasks}});
            let answer = conn.request(json!(1), "tasks/cancel", params).await;
            assert_sent_last(&core, &answer);
            vec![format!(
                "error {} result {}",
                answer["error"]["code"], answer["result"]
            )]
        },
        &["error -32602 result null"],
        &["error null result {\"resultType\":\"complete\"}"],
    )
    .await;
}

/// Two 2025-11-25 tasks (requests 1 and 2): the task id each handle names.
async fn two_task_ids(mutant: Option<Mutant>) -> Vec<String> {
    let (core, mut conn) = start(mutant, Revision::V2025_11_25);
    conn.initialize().await;
    let mut seen = Vec::new();
    for request in [1, 2] {
        let arguments = json!({"name": "slow",
            "arguments": {"steps": 1, "step_ms": 1000}, "task": {"ttl": 60000}});
        let created = conn.request(json!(request), "tools/call", arguments).await;
        assert_sent_last(&core, &created);
        seen.push(format!(
            "{request}: {}",
            created["result"]["task"]["taskId"]
        ));
    }
    seen
}

#[tokio::test(start_paused = true)]
async fn task_id_integer_names_a_task_by_its_number() {
    check(
        Mutant::TaskIdInteger,
        two_task_ids,
        &["1: \"tsk-a0565851\"", "2: \"tsk-c33d9190\""],
        &["1: 1", "2: 2"],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_id_from_request_names_a_task_by_its_request_id() {
    check(
        Mutant::TaskIdFromRequest,
        two_task_ids,
        &["1: \"tsk-a0565851\"", "2: \"tsk-c33d9190\""],
        &["1: \"1\"", "2: \"2\""],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn task_ids_repeat_names_every_task_as_the_first() {
    check(
        Mutant::TaskIdsRepeat,
        two_task_ids,
        &["1: \"tsk-a0565851\"", "2: \"tsk-c33d9190\""],
        &["1: \"tsk-a0565851\"", "2: \"tsk-a0565851\""],
    )
    .await;
}
