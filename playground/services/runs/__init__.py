"""Changing runs. Empty on purpose: import the module you need, so that importing one part
(the lease's reader, a form's check) never drags in the whole pipeline.

One module per concept:

- `actions`: what users do (start, enqueue, pause, speed, fork);
- `prepare`: what a Start needs, ready before it is asked for (a scenario's kept YAML, a big
  scenario's run start);
- `engine`: building the engine from the stored log (checkpoint + replay) and recording units;
- `cache`: the live engines a worker process keeps between actions;
- `dispatch`: sending work to the workers (tasks sent by name);
- `fleet`: the workers' presence and health (home queues, alive and busy marks);
- `news`: telling the run's pages that its log grew, and whoever subscribed;
- `worker`: `advance_run`, which executes pending actions under the run's lease;
- `fast_forward`: a Play with a target, in slices;
- `forms`: the run page's cluster forms (and the scaleDeployment form) as engine actions;
- `preflight`: a cluster action checked in the request (the engine's rules), before it is queued;
- `errors`: the exceptions the others raise.
"""
