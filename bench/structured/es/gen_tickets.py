#!/usr/bin/env python3
"""Generate tickets.jsonl: IT support tickets of a mid-sized company (camelCase field names).

Deterministic (seeded, Python stdlib only). Run from any directory:
    python3 bench/structured/es/gen_tickets.py
Fields that do not apply to a ticket (resolvedAt, resolutionHours, satisfactionRating while the
ticket is not resolved) are left out of the record rather than written as null.
"""
import json
import os
import random
from datetime import datetime, timedelta

SEED = 20250311
N = 480
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tickets.jsonl")

rng = random.Random(SEED)

TEAMS = {
    "Service Desk": ["Priya Raman", "Tomás Ortega", "Hannah Weiss"],
    "Network Operations": ["Kwame Mensah", "Sofia Lindqvist"],
    "Desktop Support": ["Liam O'Connor", "Mei Tanaka", "Rahul Desai"],
    "Identity and Access": ["Aisha Bello", "Jonas Becker"],
    "Business Applications": ["Claire Dubois", "Marcus Reid"],
}
# assignees weights inside a team (gives Priya Raman a clear lead overall)
ASSIGNEE_WEIGHT = {
    "Priya Raman": 1.6, "Tomás Ortega": 1.0, "Hannah Weiss": 0.9,
    "Kwame Mensah": 1.0, "Sofia Lindqvist": 0.8,
    "Liam O'Connor": 1.0, "Mei Tanaka": 0.9, "Rahul Desai": 0.7,
    "Aisha Bello": 1.0, "Jonas Becker": 0.8,
    "Claire Dubois": 1.0, "Marcus Reid": 0.7,
}

# category -> (team weights, titles, description openers)
CATEGORIES = {
    "network": (
        {"Network Operations": 6, "Service Desk": 2},
        ["VPN keeps disconnecting", "Wi-Fi drops in meeting room", "Slow network on third floor",
         "Cannot reach shared drive", "DNS lookups failing", "Supplier portal blocked by firewall"],
        ["The VPN client disconnects every few minutes while the user works from home.",
         "Wi-Fi in the large meeting room drops whenever more than ten people join a call.",
         "Pages load very slowly on the third floor since the switch was replaced.",
         "The shared drive cannot be reached from the branch office network.",
         "Internal sites fail to resolve because DNS lookups time out.",
         "The firewall blocks the supplier portal after the latest rule change."],
    ),
    "hardware": (
        {"Desktop Support": 7, "Service Desk": 2},
        ["Laptop will not boot", "Monitor flickers", "Docking station not detected",
         "Keyboard keys stuck", "Battery drains fast", "Webcam shows grey image"],
        ["The laptop shows a black screen and will not boot past the logo.",
         "The external monitor flickers and goes blank every few seconds.",
         "The docking station is not detected, so the second screen stays dark.",
         "Several keys on the keyboard are stuck after coffee was spilled on it.",
         "The laptop battery drains from full to empty in under two hours.",
         "The webcam shows only a grey image during video calls."],
    ),
    "software": (
        {"Business Applications": 5, "Desktop Support": 3, "Service Desk": 2},
        ["Spreadsheet add-in crashes", "Expense app shows error", "Update failed to install",
         "CRM export is empty", "License expired message", "Payroll app freezes"],
        ["The spreadsheet add-in crashes as soon as a large workbook is opened.",
         "The expense app shows an error when a receipt photo is uploaded.",
         "The monthly update failed to install and rolls back on every restart.",
         "Exports from the CRM produce an empty file with only the header row.",
         "The design software reports that its license expired although it was renewed.",
         "The payroll application freezes when the month-end report runs."],
    ),
    "access": (
        {"Identity and Access": 7, "Service Desk": 3},
        ["Password reset needed", "Account locked out", "Need access to finance folder",
         "MFA prompt not arriving", "New starter accounts", "Remove contractor access"],
        ["The user forgot the password and needs a reset before a client meeting.",
         "The account is locked out after too many failed sign-in attempts.",
         "A manager asks for read access to the finance folder for a new analyst.",
         "The MFA prompt never arrives on the user's new phone.",
         "Accounts are needed for a new starter joining on Monday.",
         "A contractor still has access to the project site after leaving."],
    ),
    "email": (
        {"Service Desk": 6, "Business Applications": 2},
        ["Mailbox full", "Suspicious phishing email", "Emails stuck in outbox",
         "Shared calendar not syncing", "Distribution list change", "Large attachments rejected"],
        ["The mailbox is full and new messages bounce back to senders.",
         "The user received a suspicious phishing email asking to confirm bank details.",
         "Emails stay stuck in the outbox and are never sent.",
         "The shared calendar does not sync between the phone and the desktop.",
         "A distribution list needs three new members and one removal.",
         "Attachments larger than a few megabytes are rejected by the mail server."],
    ),
    "printing": (
        {"Desktop Support": 5, "Service Desk": 4},
        ["Printer out of toner", "Print jobs stuck in queue", "Scanner not sending to email",
         "Paper jam on second floor", "Cannot add printer", "Streaks on colour prints"],
        ["The printer near reception is out of toner and prints faded pages.",
         "Print jobs sit in the queue and never reach the printer.",
         "The scanner does not send scans to email any more.",
         "The second floor printer reports a paper jam that cannot be found.",
         "The user cannot add the floor printer to a new laptop.",
         "Colour prints come out with streaks across every page."],
    ),
}
CAT_WEIGHTS = {"network": 17, "hardware": 20, "software": 19, "access": 21, "email": 14, "printing": 9}

FOLLOW_RESOLVED = [
    "Fixed after the driver was reinstalled and the machine restarted.",
    "Resolved by resetting the configuration to the company defaults.",
    "The engineer replaced the faulty part on site and the user confirmed it works.",
    "A remote session sorted it out and the user was shown how to avoid it.",
    "The vendor supplied a patch which solved the problem.",
    "Closed after the user confirmed everything works again.",
    "Workaround documented in the knowledge base and the root cause fixed.",
]
FOLLOW_OPEN = [
    "Waiting for the user to reply with a screenshot.",
    "Escalated to the vendor, no answer yet.",
    "The engineer has asked for remote access to investigate.",
    "Several colleagues in the same office report the same thing.",
    "The user needs this working before the end of the week.",
    "Parts have been ordered and should arrive in a few days.",
    "",
]

PRIORITIES = ["low", "medium", "high", "critical"]
PRIO_W = [30, 40, 22, 8]
DEPTS = ["Finance", "Human Resources", "Sales", "Engineering", "Legal", "Marketing",
         "Operations", "Customer Success"]
DEPT_W = [12, 8, 16, 18, 5, 10, 12, 9]
COUNTRIES = ["CA", "US", "GB", "DE", "IN", "AU"]
COUNTRY_W = [26, 30, 14, 10, 15, 5]
CHANNELS = ["email", "phone", "portal", "chat", "walk-in"]
CHANNEL_W = [25, 18, 32, 20, 5]

START = datetime(2024, 1, 1)
END = datetime(2025, 12, 31, 23, 59, 59)
NOW = datetime(2026, 1, 10, 9, 0, 0)


def pick(options, weights):
    return rng.choices(options, weights=weights, k=1)[0]


def fmt(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S")


def main():
    records = []
    span = int((END - START).total_seconds())
    created = sorted(START + timedelta(seconds=rng.randrange(span)) for _ in range(N))
    for i, created_at in enumerate(created):
        # office hours are more likely
        if rng.random() < 0.8:
            created_at = created_at.replace(hour=rng.randint(8, 17))
        category = pick(list(CAT_WEIGHTS), list(CAT_WEIGHTS.values()))
        team_w, titles, openers = CATEGORIES[category]
        team = pick(list(team_w), list(team_w.values()))
        members = TEAMS[team]
        assignee = pick(members, [ASSIGNEE_WEIGHT[m] for m in members])
        priority = pick(PRIORITIES, PRIO_W)
        k = rng.randrange(len(openers))
        opener = openers[k]
        title = titles[k]

        age_days = (NOW - created_at).days
        # older tickets are nearly all resolved or closed
        if age_days > 120:
            status = pick(["closed", "resolved", "on_hold", "open"], [70, 22, 4, 4])
        elif age_days > 30:
            status = pick(["closed", "resolved", "on_hold", "open", "in_progress"], [40, 30, 8, 12, 10])
        else:
            status = pick(["new", "open", "in_progress", "on_hold", "resolved"], [20, 30, 25, 10, 15])
        is_resolved = status in ("resolved", "closed")

        first_response = {"critical": (2, 25), "high": (5, 60), "medium": (10, 240), "low": (20, 600)}[priority]
        first_response_min = rng.randint(*first_response)

        rec = {
            "id": f"TKT-{10001 + i}",
            "title": title,
            "category": category,
            "priority": priority,
            "status": status,
            "isResolved": is_resolved,
            "team": team,
            "assigneeName": assignee,
            "requesterDepartment": pick(DEPTS, DEPT_W),
            "officeCountry": pick(COUNTRIES, COUNTRY_W),
            "channel": pick(CHANNELS, CHANNEL_W),
            "createdAt": fmt(created_at),
        }
        if is_resolved:
            scale = {"critical": 6, "high": 14, "medium": 30, "low": 60}[priority]
            hours = round(min(rng.expovariate(1 / scale) + 0.3, 400.0), 1)
            resolved_at = created_at + timedelta(hours=hours)
            rec["resolvedAt"] = fmt(resolved_at)
            rec["resolutionHours"] = hours
        rec["firstResponseMin"] = first_response_min
        if is_resolved and rng.random() < 0.7:
            base = 5 if rec.get("resolutionHours", 99) < 8 else 4 if rec["resolutionHours"] < 48 else 3
            rec["satisfactionRating"] = max(1, min(5, base + rng.choice([-2, -1, -1, 0, 0, 0, 0, 1])))
        rec["reopenCount"] = pick([0, 1, 2, 3], [78, 15, 5, 2])
        sla_hours = {"critical": 8, "high": 24, "medium": 72, "low": 120}[priority]
        if is_resolved:
            rec["slaBreached"] = rec["resolutionHours"] > sla_hours
        else:
            rec["slaBreached"] = (NOW - created_at).total_seconds() / 3600 > sla_hours and rng.random() < 0.5
        rec["affectedUsers"] = 1 if rng.random() < 0.6 else rng.choice([2, 3, 5, 8, 12, 25, 40, 120, 300])
        follow = rng.choice(FOLLOW_RESOLVED if is_resolved else FOLLOW_OPEN)
        rec["description"] = (opener + " " + follow).strip()
        records.append(rec)

    with open(OUT, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
