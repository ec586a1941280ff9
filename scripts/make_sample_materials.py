"""(Re)create the binary and CSV materials of the bundled sample project `kestrel-refinancing`.

Run from the repository root:

    python scripts/make_sample_materials.py

Every figure comes from the FIGURES table below, and derived figures (balance sheets, cash
flows, net debt, leverage) are computed from it and checked, so the management accounts, the
facility schedule, the business plan, the fleet valuation and the CSV series agree with each
other and with the hand-written markdown materials. Output is deterministic: workbook and PDF
metadata carry fixed dates, and the xlsx zip entries carry a fixed timestamp.

Kestrel Freight Group and everything about it is fictional.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import random
import re
import zipfile
from pathlib import Path

import openpyxl
import pymupdf
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "projects" / "kestrel-refinancing" / "materials"

FIXED_TIME = dt.datetime(2026, 3, 2, 9, 0, 0)
ZIP_TIME = (2026, 3, 2, 9, 0, 0)
PDF_DATE = "D:20260302090000+00'00'"

# --------------------------------------------------------------------------------------------
# The table of figures. EUR millions unless stated. Financial years end 31 December.
# --------------------------------------------------------------------------------------------
YEARS = ["FY2023", "FY2024", "FY2025"]

FIGURES = {
    "company": "Kestrel Freight Group",
    "borrower": "Kestrel Freight Holding B.V.",
    "reporting_date": "31 December 2025",
    # Profit and loss, as reported in the management accounts (other operating income of
    # FY2025 includes the 2.9 gain on the disposal of surplus land at the Duisburg depot).
    "pl": {
        "Revenue": [391.6, 405.2, 421.4],
        "of which fuel surcharge revenue": [38.2, 34.9, 33.6],
        "Personnel costs": [-158.3, -166.1, -172.9],
        "Subcontracted haulage": [-62.7, -66.0, -70.2],
        "Fuel": [-71.4, -66.8, -65.3],
        "Tolls and road charges": [-21.6, -23.9, -26.8],
        "Vehicle maintenance and tyres": [-18.9, -19.6, -20.4],
        "Depot and property costs": [-12.8, -13.4, -13.9],
        "Insurance": [-5.9, -6.3, -6.6],
        "Other operating expenses": [-4.2, -5.6, -7.1],
        "Other operating income": [1.1, 0.9, 3.6],
        "Depreciation and amortisation": [-24.1, -25.3, -26.2],
        "Net finance costs": [-8.1, -8.5, -8.7],
        "Income tax": [-1.3, -1.2, -1.9],
    },
    "ebitda_reported": [36.9, 38.4, 41.8],
    "disposal_gain_fy2025": 2.9,
    "disposal_proceeds_fy2025": 4.6,
    "disposal_book_value_fy2025": 1.7,
    # FY2025 by quarter (reported basis).
    "quarters": {
        "Revenue": [101.2, 105.9, 104.6, 109.7],
        "Other operating income": [0.2, 0.2, 3.1, 0.1],
        "EBITDA": [9.3, 10.1, 12.4, 10.0],
    },
    # Balance sheet at 31 December 2023 (opening); later years are rolled forward below.
    "opening_bs": {
        "Property, plant and equipment": 215.0,
        "Trade receivables": 61.2,
        "Other current assets": 9.8,
        "Cash": 18.7,
        "Term Loan A": 140.0,
        "Revolving credit facility (cash drawings)": 15.0,
        "Vehicle finance leases": 41.8,
        "Trade payables": 48.6,
        "Other liabilities and provisions": 14.9,
    },
    # Year-end working capital and debt balances of FY2024 and FY2025.
    "bs_later": {
        "Trade receivables": [63.5, 66.9],
        "Other current assets": [10.4, 10.1],
        "Trade payables": [50.2, 52.8],
        "Other liabilities and provisions": [15.6, 16.2],
        "Cash": [21.5, 24.3],
        "Term Loan A": [130.0, 120.0],
        "Revolving credit facility (cash drawings)": [20.0, 22.0],
        "Vehicle finance leases": [44.2, 46.5],
    },
    "lease_additions": [11.0, 12.1],  # FY2024, FY2025: new vehicles financed by lessors (non-cash)
    # Existing facilities (agreement dated 28 September 2021).
    "tla_original": 150.0,
    "tla_quarterly_amortisation": 2.5,
    "tla_margin_pct": 3.00,
    "rcf_commitment": 60.0,
    "rcf_ancillary_guarantees": 3.4,
    "rcf_margin_pct": 2.75,
    "existing_maturity": "30 September 2026",
    "existing_leverage_covenant": {"FY2023": 5.00, "FY2024": 4.75, "FY2025": 4.50, "FY2026": 4.50},
    "existing_interest_cover_min": 3.50,
    "existing_lenders": [("Rheinwald Bank AG (Agent)", 0.40), ("Banque Carrel SA", 0.35), ("Northmere Bank plc", 0.25)],
    "finance_leases": [
        ("Lessor A - Lindeveld Lease Finance B.V.", 96, 21.3, 4.4),
        ("Lessor B - Ruhrtal Mobilien-Leasing GmbH", 71, 15.6, 4.7),
        ("Lessor C - Meuse Equipment Finance SA", 45, 9.6, 4.9),
    ],
    # Fleet valuation of tractor units at 31 October 2025 (FMV and OLV, EUR m).
    "fleet": {
        "owned": [("0-2 years", 148, 30.3, 22.5), ("3-5 years", 301, 43.6, 31.3), ("6-8 years", 243, 24.4, 17.8)],
        "leased": [("0-2 years", 171, 27.0, 20.3), ("3-5 years", 41, 5.9, 4.5)],
    },
    # Management business plan (FY2025A column as reported, i.e. including the disposal gain).
    "plan_years": ["FY2026B", "FY2027P", "FY2028P", "FY2029P", "FY2030P"],
    "plan": {
        "Revenue": [436.2, 451.0, 466.3, 480.3, 493.8],
        "EBITDA": [40.9, 43.2, 45.6, 47.4, 49.1],
        "Gross capital expenditure": [24.0, 25.5, 26.0, 27.0, 27.5],
        "of which lease-financed": [9.5, 10.0, 10.5, 11.0, 11.0],
        "Cash taxes": [2.0, 2.4, 2.8, 3.2, 3.5],
        "Increase in working capital": [1.0, 1.1, 1.1, 1.0, 1.0],
        "Lease principal repayments": [10.4, 10.9, 11.3, 11.6, 11.9],
    },
    # Shipment volumes: average monthly consignments in FY2023 by depot, and yearly growth.
    "depots": {"Venlo": 21000, "Duisburg": 17500, "Liege": 12800},
    "volume_growth": {2024: 0.020, 2025: 0.031},
    # Diesel, EUR per litre excluding VAT, first and last month of each year.
    "diesel": {2023: (1.62, 1.46), 2024: (1.47, 1.43), 2025: (1.44, 1.39)},
    # 3-month Euribor forward curve, quarter ends from 30 June 2026 (per cent).
    "euribor_forward": [2.05, 2.05, 2.08, 2.10, 2.13, 2.16, 2.20, 2.24, 2.28, 2.31,
                        2.34, 2.36, 2.38, 2.40, 2.41, 2.42, 2.43, 2.44, 2.45, 2.45, 2.46],
}


def r1(value: float) -> float:
    return round(value + 0.0, 1)


def derive() -> dict:
    """Compute the reported EBITDA, the rolled-forward balance sheets and cash flows; check them."""
    f = FIGURES
    pl = f["pl"]
    ebitda_lines = [k for k in pl if k not in ("Revenue", "of which fuel surcharge revenue",
                                                "Depreciation and amortisation", "Net finance costs", "Income tax")]
    d: dict = {"ebitda": [], "net_income": []}
    for i in range(3):
        ebitda = r1(pl["Revenue"][i] + sum(pl[k][i] for k in ebitda_lines))
        assert ebitda == f["ebitda_reported"][i], (YEARS[i], ebitda)
        d["ebitda"].append(ebitda)
        d["net_income"].append(r1(ebitda + pl["Depreciation and amortisation"][i] + pl["Net finance costs"][i] + pl["Income tax"][i]))
    q = f["quarters"]
    assert r1(sum(q["Revenue"])) == pl["Revenue"][2]
    assert r1(sum(q["Other operating income"])) == pl["Other operating income"][2]
    assert r1(sum(q["EBITDA"])) == d["ebitda"][2]
    assert r1(f["disposal_proceeds_fy2025"] - f["disposal_book_value_fy2025"]) == f["disposal_gain_fy2025"]
    d["ebitda_restated_fy2025"] = r1(d["ebitda"][2] - f["disposal_gain_fy2025"])

    # Roll the balance sheet forward; capital expenditure paid in cash is the balancing flow.
    o = dict(f["opening_bs"])
    equity = r1(o["Property, plant and equipment"] + o["Trade receivables"] + o["Other current assets"] + o["Cash"]
                - o["Term Loan A"] - o["Revolving credit facility (cash drawings)"] - o["Vehicle finance leases"]
                - o["Trade payables"] - o["Other liabilities and provisions"])
    bs = [dict(o, Equity=equity)]
    cfs = []
    for j, i in enumerate((1, 2)):
        prev = bs[-1]
        cur = {k: v[j] for k, v in f["bs_later"].items()}
        gain = f["disposal_gain_fy2025"] if i == 2 else 0.0
        proceeds = f["disposal_proceeds_fy2025"] if i == 2 else 0.0
        nbv = f["disposal_book_value_fy2025"] if i == 2 else 0.0
        wc = r1(-(cur["Trade receivables"] - prev["Trade receivables"]) - (cur["Other current assets"] - prev["Other current assets"])
                + (cur["Trade payables"] - prev["Trade payables"]) + (cur["Other liabilities and provisions"] - prev["Other liabilities and provisions"]))
        lease_principal = r1(prev["Vehicle finance leases"] + f["lease_additions"][j] - cur["Vehicle finance leases"])
        tax = -pl["Income tax"][i]
        interest = -pl["Net finance costs"][i]
        tla_change = r1(cur["Term Loan A"] - prev["Term Loan A"])
        rcf_change = r1(cur["Revolving credit facility (cash drawings)"] - prev["Revolving credit facility (cash drawings)"])
        operating = r1(d["ebitda"][i] - gain + wc - tax)
        capex_cash = r1(operating + proceeds - interest + tla_change + rcf_change - lease_principal - (cur["Cash"] - prev["Cash"]))
        cfs.append({
            "EBITDA (reported)": d["ebitda"][i],
            "Less gain on disposal (non-cash)": -gain if gain else 0.0,
            "Change in working capital": wc,
            "Income tax paid": -tax,
            "Cash flow from operations": operating,
            "Capital expenditure paid in cash": -capex_cash,
            "Proceeds from disposal of land": proceeds,
            "Interest and finance costs paid": -interest,
            "Term Loan A repayments": tla_change,
            "Net RCF drawings": rcf_change,
            "Lease principal repayments": -lease_principal,
            "Net change in cash": r1(cur["Cash"] - prev["Cash"]),
            "Memo: vehicles added under finance leases (non-cash)": f["lease_additions"][j],
        })
        cur["Property, plant and equipment"] = r1(prev["Property, plant and equipment"] + capex_cash + f["lease_additions"][j]
                                                  + pl["Depreciation and amortisation"][i] - nbv)
        cur["Equity"] = r1(prev["Equity"] + d["net_income"][i])
        assets = cur["Property, plant and equipment"] + cur["Trade receivables"] + cur["Other current assets"] + cur["Cash"]
        liabilities = (cur["Term Loan A"] + cur["Revolving credit facility (cash drawings)"] + cur["Vehicle finance leases"]
                       + cur["Trade payables"] + cur["Other liabilities and provisions"] + cur["Equity"])
        assert abs(assets - liabilities) < 0.05, (YEARS[i], assets, liabilities)
        assert 10.0 < capex_cash < 20.0, capex_cash
        bs.append(cur)
    d["bs"], d["cfs"] = bs, cfs

    # Net debt and leverage at each year end (covenant definition: borrowings incl. vehicle leases, less cash).
    d["net_debt"] = []
    for b in bs:
        d["net_debt"].append(r1(b["Term Loan A"] + b["Revolving credit facility (cash drawings)"] + b["Vehicle finance leases"] - b["Cash"]))
    assert d["net_debt"][2] == 164.2, d["net_debt"]
    assert f["tla_original"] - 4 * 3 * f["tla_quarterly_amortisation"] == bs[2]["Term Loan A"]

    fleet = f["fleet"]
    for key, fmv, olv in (("owned", 98.3, 71.6), ("leased", 32.9, 24.8)):
        assert r1(sum(x[2] for x in fleet[key])) == fmv and r1(sum(x[3] for x in fleet[key])) == olv
    assert sum(x[1] for x in fleet["owned"]) == 692 and sum(x[1] for x in fleet["leased"]) == 212
    assert sum(x[1] for x in f["finance_leases"]) == 212
    assert r1(sum(x[2] for x in f["finance_leases"])) == bs[2]["Vehicle finance leases"]
    return d


# --------------------------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------------------------
HEAD = Font(bold=True)
TITLE = Font(bold=True, size=13)
FILL = PatternFill("solid", fgColor="DDE6F0")
NUM = "#,##0.0;(#,##0.0);-"


def new_workbook(title: str) -> openpyxl.Workbook:
    wb = openpyxl.Workbook()
    wb.properties.creator = "Kestrel Freight Group - Group Finance"
    wb.properties.lastModifiedBy = "Kestrel Freight Group - Group Finance"
    wb.properties.title = title
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    wb.remove(wb.active)
    return wb


def table(ws, top: int, header: list[str], rows: list[list], number_format: str = NUM) -> int:
    for c, text in enumerate(header, start=1):
        cell = ws.cell(row=top, column=c, value=text)
        cell.font, cell.fill = HEAD, FILL
        cell.alignment = Alignment(horizontal="left" if c == 1 else "right")
    for r, row in enumerate(rows, start=top + 1):
        for c, value in enumerate(row, start=1):
            cell = ws.cell(row=r, column=c, value=value)
            if isinstance(value, float):
                cell.number_format = number_format
    ws.column_dimensions["A"].width = 52
    for c in range(2, len(header) + 1):
        ws.column_dimensions[get_column_letter(c)].width = 16
    return top + len(rows) + 1


def heading(ws, title: str, subtitle: str) -> None:
    ws["A1"] = title
    ws["A1"].font = TITLE
    ws["A2"] = subtitle


def save_workbook(wb: openpyxl.Workbook, path: Path) -> None:
    """Save, then rewrite the zip with fixed timestamps and a fixed modified date."""
    buffer = io.BytesIO()
    wb.save(buffer)
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                text = data.decode("utf-8")
                text = re.sub(r"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)", rf"\g<1>{stamp}\g<2>", text)
                text = re.sub(r"(<dcterms:created[^>]*>)[^<]*(</dcterms:created>)", rf"\g<1>{stamp}\g<2>", text)
                data = text.encode("utf-8")
            entry = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, data)
    path.write_bytes(out.getvalue())


def management_accounts(d: dict) -> None:
    f = FIGURES
    wb = new_workbook("Management accounts FY2023-FY2025")
    ws = wb.create_sheet("P&L annual")
    heading(ws, "Kestrel Freight Group - consolidated management accounts", "Profit and loss, EUR m, years ended 31 December (unaudited management basis)")
    rows = []
    pl = f["pl"]
    order = ["Revenue", "of which fuel surcharge revenue", "Personnel costs", "Subcontracted haulage", "Fuel",
             "Tolls and road charges", "Vehicle maintenance and tyres", "Depot and property costs", "Insurance",
             "Other operating expenses", "Other operating income"]
    for key in order:
        rows.append([("  " if key.startswith("of which") else "") + key] + [float(v) for v in pl[key]])
    rows.append(["EBITDA"] + [float(v) for v in d["ebitda"]])
    rows.append(["EBITDA margin %"] + [round(100 * e / rv, 1) for e, rv in zip(d["ebitda"], pl["Revenue"])])
    for key in ("Depreciation and amortisation", "Net finance costs", "Income tax"):
        rows.append([key] + [float(v) for v in pl[key]])
    rows.append(["Net income"] + [float(v) for v in d["net_income"]])
    end = table(ws, 4, ["EUR m"] + YEARS, rows)
    for r in range(5, end + 1):
        if ws.cell(row=r, column=1).value in ("EBITDA", "Net income"):
            for c in range(1, 5):
                ws.cell(row=r, column=c).font = HEAD
    ws.cell(row=end + 2, column=1, value="Source: group reporting pack, December 2025 close. FY2025 subject to audit.")

    ws = wb.create_sheet("P&L quarterly FY2025")
    heading(ws, "Kestrel Freight Group - FY2025 by quarter", "EUR m, unaudited management basis")
    q = f["quarters"]
    rows = [[k] + [float(v) for v in q[k]] + [float(r1(sum(q[k])))] for k in ("Revenue", "Other operating income", "EBITDA")]
    table(ws, 4, ["EUR m", "Q1 2025", "Q2 2025", "Q3 2025", "Q4 2025", "FY2025"], rows)

    ws = wb.create_sheet("Balance sheet")
    heading(ws, "Kestrel Freight Group - balance sheet", "EUR m, at 31 December")
    keys_assets = ["Property, plant and equipment", "Trade receivables", "Other current assets", "Cash"]
    keys_liab = ["Term Loan A", "Revolving credit facility (cash drawings)", "Vehicle finance leases",
                 "Trade payables", "Other liabilities and provisions", "Equity"]
    rows = [[k] + [float(b[k]) for b in d["bs"]] for k in keys_assets]
    rows.append(["Total assets"] + [float(r1(sum(b[k] for k in keys_assets))) for b in d["bs"]])
    rows += [[k] + [float(b[k]) for b in d["bs"]] for k in keys_liab]
    rows.append(["Total equity and liabilities"] + [float(r1(sum(b[k] for k in keys_liab))) for b in d["bs"]])
    table(ws, 4, ["EUR m"] + ["31 Dec 2023", "31 Dec 2024", "31 Dec 2025"], rows)

    ws = wb.create_sheet("Cash flow")
    heading(ws, "Kestrel Freight Group - cash flow summary", "EUR m, years ended 31 December")
    keys = list(d["cfs"][0])
    rows = [[k] + [float(c[k]) for c in d["cfs"]] for k in keys]
    table(ws, 4, ["EUR m", "FY2024", "FY2025"], rows)

    ws = wb.create_sheet("Notes")
    notes = [
        "Notes to the management accounts",
        "1. Basis: monthly management reporting consolidated for Kestrel Freight Holding B.V. and its three operating subsidiaries (Netherlands, Germany, Belgium).",
        "2. Revenue includes fuel surcharges invoiced to customers under index-linked clauses.",
        "3. Other operating income includes insurance recoveries, scrap and tyre sales, rental income from sublet yard space and property-related items.",
        "4. Borrowings include vehicle finance leases (212 tractor units). Property leases are accounted for as operating leases under Dutch GAAP.",
        "5. FY2025 figures are subject to the statutory audit, expected to be signed in late April 2026.",
        "6. Depots: Venlo (NL, cross-dock and head office), Duisburg (DE, cross-dock), Liege (BE, cross-dock).",
    ]
    for i, text in enumerate(notes, start=1):
        ws.cell(row=i, column=1, value=text).font = HEAD if i == 1 else Font()
    ws.column_dimensions["A"].width = 140
    save_workbook(wb, OUT / "management-accounts-fy2023-fy2025.xlsx")


def facility_schedule(d: dict) -> None:
    f = FIGURES
    b = d["bs"][2]
    wb = new_workbook("Existing facilities schedule at 31 December 2025")
    ws = wb.create_sheet("Facilities")
    heading(ws, "Kestrel Freight Holding B.V. - existing financing at 31 December 2025",
            "EUR m. Senior facilities agreement dated 28 September 2021; Agent: Rheinwald Bank AG")
    rcf_drawn = b["Revolving credit facility (cash drawings)"]
    anc = f["rcf_ancillary_guarantees"]
    rows = [
        ["Term Loan A", float(f["tla_original"]), float(b["Term Loan A"]), 0.0, 0.0, f"E3M + {f['tla_margin_pct']:.2f}%", f["existing_maturity"]],
        ["Revolving credit facility", float(f["rcf_commitment"]), float(rcf_drawn), float(anc), float(r1(f["rcf_commitment"] - rcf_drawn - anc)),
         f"E3M + {f['rcf_margin_pct']:.2f}%", f["existing_maturity"]],
        ["Total senior facilities", float(f["tla_original"] + f["rcf_commitment"]), float(r1(b["Term Loan A"] + rcf_drawn)), float(anc),
         float(r1(f["rcf_commitment"] - rcf_drawn - anc)), "", ""],
    ]
    end = table(ws, 4, ["Facility", "Original commitment", "Cash drawn 31 Dec 2025", "Ancillary (bank guarantees)",
                        "Available", "Pricing", "Final maturity"], rows)
    ws.cell(row=end + 2, column=1, value="Lender participations (pro rata across both facilities)").font = HEAD
    r = end + 3
    for name, share in f["existing_lenders"]:
        ws.cell(row=r, column=1, value=name)
        ws.cell(row=r, column=2, value=share).number_format = "0%"
        r += 1
    ws.cell(row=r + 1, column=1, value="Commitment fee on undrawn RCF: 35% of the applicable margin. Ancillary guarantees reduce RCF availability but are not cash borrowings.")
    ws.cell(row=r + 2, column=1, value="Vehicle finance leases are bilateral with three lessors, outside the senior facilities agreement, and permitted financial indebtedness under it.")

    ws = wb.create_sheet("TLA amortisation")
    heading(ws, "Term Loan A - repayment schedule", "EUR m. Quarterly instalments from 31 March 2023; balance repayable at final maturity")
    rows = []
    bal = f["tla_original"]
    dates = []
    for year in range(2023, 2027):
        for month, day in ((3, 31), (6, 30), (9, 30), (12, 31)):
            dates.append(dt.date(year, month, day))
    for date in dates:
        if date > dt.date(2026, 9, 30):
            break
        opening = bal
        if date == dt.date(2026, 9, 30):
            pay = bal
            label = "Final maturity (instalment and balloon)"
        else:
            pay = f["tla_quarterly_amortisation"]
            label = "Scheduled instalment" if date <= dt.date(2025, 12, 31) else "Scheduled instalment (future)"
        bal = r1(bal - pay)
        rows.append([date.isoformat(), float(opening), float(pay), float(bal), label])
    table(ws, 4, ["Payment date", "Opening", "Repayment", "Closing", "Status"], rows)
    ws.column_dimensions["A"].width = 16
    ws.column_dimensions["E"].width = 40

    ws = wb.create_sheet("Finance leases")
    heading(ws, "Vehicle finance leases at 31 December 2025", "EUR m. Title to leased tractor units remains with the lessor until final payment")
    rows = [[name, units, float(balance), rate] for name, units, balance, rate in f["finance_leases"]]
    rows.append(["Total", sum(x[1] for x in f["finance_leases"]), float(b["Vehicle finance leases"]), ""])
    table(ws, 4, ["Lessor", "Tractor units", "Outstanding", "Average rate %"], rows)

    ws = wb.create_sheet("Covenants")
    heading(ws, "Financial covenants - senior facilities agreement", "Tested semi-annually on a rolling 12-month basis at 30 June and 31 December")
    lev = f["existing_leverage_covenant"]
    rows = [
        ["Net leverage (Total Net Debt / Consolidated EBITDA), maximum", "x", lev["FY2023"], lev["FY2024"], lev["FY2025"], lev["FY2026"]],
        ["Interest cover (Consolidated EBITDA / Net Finance Charges), minimum", "x", f["existing_interest_cover_min"],
         f["existing_interest_cover_min"], f["existing_interest_cover_min"], f["existing_interest_cover_min"]],
    ]
    end = table(ws, 4, ["Covenant", "Unit", "31 Dec 2023", "31 Dec 2024", "31 Dec 2025", "30 Jun 2026"], rows, "0.00")
    defs = [
        "Definitions (summary prepared by Group Treasury; the agreement prevails):",
        "Total Net Debt: all borrowings under the facilities plus vehicle finance lease liabilities, less cash and cash equivalents.",
        "Consolidated EBITDA: consolidated operating profit before depreciation and amortisation, excluding exceptional items and any gain or loss on the disposal of non-current assets.",
        "Net Finance Charges: interest, commitment fees and lease interest, net of interest income.",
        "Compliance certificate for the 31 December 2025 test date is due with the audited accounts, within 120 days of year end; not yet delivered.",
    ]
    for i, text in enumerate(defs):
        ws.cell(row=end + 2 + i, column=1, value=text).font = HEAD if i == 0 else Font()
    rows = []
    for i, year in enumerate(YEARS):
        rows.append([f"31 Dec {year[2:]}", float(d["net_debt"][i]), float(d["ebitda"][i]), round(d["net_debt"][i] / d["ebitda"][i], 2), lev[year], "Certified" if i < 2 else "Pending"])
    top = end + 2 + len(defs) + 1
    ws.cell(row=top, column=1, value="Test history as reported by Group Treasury (EBITDA as per management accounts)").font = HEAD
    table(ws, top + 1, ["Test date", "Total Net Debt", "EBITDA used", "Net leverage", "Covenant max", "Certificate"], rows)
    save_workbook(wb, OUT / "existing-facilities-schedule.xlsx")


def business_plan(d: dict) -> None:
    f = FIGURES
    wb = new_workbook("Management business plan FY2026-FY2030")
    ws = wb.create_sheet("Plan")
    heading(ws, "Kestrel Freight Group - management business plan", "EUR m, years ending 31 December. Approved by the board on 12 February 2026")
    header = ["EUR m", "FY2025A"] + f["plan_years"]
    pl = f["plan"]
    fy25 = {
        "Revenue": FIGURES["pl"]["Revenue"][2],
        "EBITDA": d["ebitda"][2],
        "Gross capital expenditure": r1(-d["cfs"][1]["Capital expenditure paid in cash"] + f["lease_additions"][1]),
        "of which lease-financed": f["lease_additions"][1],
        "Cash taxes": -d["cfs"][1]["Income tax paid"],
        "Increase in working capital": -d["cfs"][1]["Change in working capital"],
        "Lease principal repayments": -d["cfs"][1]["Lease principal repayments"],
    }
    rows = []
    for key in pl:
        label = ("  " if key.startswith("of which") else "") + key
        rows.append([label, float(fy25[key])] + [float(v) for v in pl[key]])
    rows.insert(2, ["EBITDA margin %", round(100 * fy25["EBITDA"] / fy25["Revenue"], 1)]
                + [round(100 * e / rv, 1) for e, rv in zip(pl["EBITDA"], pl["Revenue"])])
    end = table(ws, 4, header, rows)
    notes = [
        "Plan notes:",
        "1. FY2025A is taken from the December 2025 management accounts.",
        "2. Revenue growth reflects contracted volume increases with two retail customers from Q2 2026 and indexation; fuel surcharge assumed revenue-neutral.",
        "3. Gross capital expenditure covers tractor replacement (about 110 to 125 units a year), depot equipment and IT. Lease-financed additions are non-cash.",
        "4. The plan contains no property disposals and no change to the depot footprint.",
        "5. The plan does not include works at the Venlo depot fuel installation.",
        "6. Financing costs are not part of the operating plan; the advisers' model adds them.",
    ]
    for i, text in enumerate(notes):
        ws.cell(row=end + 2 + i, column=1, value=text).font = HEAD if i == 0 else Font()
    save_workbook(wb, OUT / "business-plan-fy2026-fy2030.xlsx")


def write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def shipments() -> None:
    rng = random.Random(20251231)
    season = [0.93, 0.96, 1.03, 1.01, 1.02, 1.03, 0.98, 0.90, 1.04, 1.07, 1.08, 0.95]
    rows = []
    for year in (2023, 2024, 2025):
        growth = 1.0
        for y in range(2024, year + 1):
            growth *= 1 + FIGURES["volume_growth"][y]
        for month in range(1, 13):
            for depot, base in FIGURES["depots"].items():
                consignments = round(base * growth * season[month - 1] * (1 + rng.uniform(-0.015, 0.015)))
                pallets = round(consignments * (3.4 + rng.uniform(-0.08, 0.08)))
                km = round(consignments * (0.071 + rng.uniform(-0.002, 0.002)), 1)
                rows.append([f"{year}-{month:02d}", depot, consignments, pallets, km])
    write_csv(OUT / "shipment-volumes-2023-2025.csv", ["month", "depot", "consignments", "pallet_movements", "linehaul_km_thousand"], rows)


def diesel_index() -> None:
    rows = []
    base = FIGURES["diesel"][2023][0]
    wobble = [0.00, 0.01, -0.01, 0.02, 0.00, -0.02, 0.01, 0.02, 0.01, -0.01, 0.00, 0.00]
    for year, (first, last) in FIGURES["diesel"].items():
        for month in range(1, 13):
            price = first + (last - first) * (month - 1) / 11 + (wobble[month - 1] if month not in (1, 12) else 0.0)
            price = round(price, 3)
            index = round(100 * price / base, 1)
            surcharge = round(max(0.0, (price - 1.10) / 1.10 * 100 * 0.45), 1)
            rows.append([f"{year}-{month:02d}", f"{price:.3f}", f"{index:.1f}", f"{surcharge:.1f}"])
    write_csv(OUT / "diesel-cost-index-2023-2025.csv",
              ["month", "diesel_eur_per_litre_ex_vat", "index_jan2023_100", "fuel_surcharge_pct_applied"], rows)


def euribor_curve() -> None:
    rows = []
    date = dt.date(2026, 6, 30)
    for rate in FIGURES["euribor_forward"]:
        rows.append([date.isoformat(), f"{rate:.2f}"])
        month = date.month + 3
        year = date.year + (month - 1) // 12
        month = (month - 1) % 12 + 1
        day = {3: 31, 6: 30, 9: 30, 12: 31}[month]
        date = dt.date(year, month, day)
    write_csv(OUT / "euribor-3m-forward-curve.csv", ["quarter_end", "euribor_3m_forward_pct"], rows)


# --------------------------------------------------------------------------------------------
# PDFs
# --------------------------------------------------------------------------------------------
class PdfWriter:
    """A small flowing-text writer over pymupdf: headings, paragraphs and simple tables."""

    def __init__(self, title: str, author: str):
        self.doc = pymupdf.open()
        self.title, self.author = title, author
        self.page = None
        self.y = 0.0
        self.new_page()

    def new_page(self) -> None:
        self.page = self.doc.new_page(width=595, height=842)
        self.y = 60.0

    def ensure(self, height: float) -> None:
        if self.y + height > 780:
            self.new_page()

    def text(self, text: str, size: float = 10, bold: bool = False, gap: float = 6) -> None:
        font = "hebo" if bold else "helv"
        width = 475
        # Wrap by measuring words.
        words, lines, line = text.split(), [], ""
        for word in words:
            trial = f"{line} {word}".strip()
            if pymupdf.get_text_length(trial, fontname=font, fontsize=size) > width and line:
                lines.append(line)
                line = word
            else:
                line = trial
        if line:
            lines.append(line)
        self.ensure(len(lines) * size * 1.35 + gap)
        for item in lines:
            self.page.insert_text((60, self.y + size), item, fontname=font, fontsize=size)
            self.y += size * 1.35
        self.y += gap

    def table(self, header: list[str], rows: list[list[str]], widths: list[float], size: float = 9) -> None:
        self.ensure((len(rows) + 1) * 15 + 10)
        for r, row in enumerate([header] + rows):
            x = 60.0
            font = "hebo" if r == 0 or row[0].startswith("Total") else "helv"
            for c, value in enumerate(row):
                if c == 0:
                    self.page.insert_text((x, self.y + size), str(value), fontname=font, fontsize=size)
                else:
                    length = pymupdf.get_text_length(str(value), fontname=font, fontsize=size)
                    self.page.insert_text((x + widths[c] - length - 4, self.y + size), str(value), fontname=font, fontsize=size)
                x += widths[c]
            if r == 0:
                self.page.draw_line((60, self.y + size + 4), (60 + sum(widths), self.y + size + 4), width=0.6)
            self.y += 15
        self.y += 8

    def save(self, path: Path) -> None:
        for number, page in enumerate(self.doc, start=1):
            footer = f"{self.title} - page {number} of {len(self.doc)}"
            page.insert_text((60, 815), footer, fontname="helv", fontsize=7.5)
        self.doc.set_metadata({
            "title": self.title, "author": self.author, "subject": "Kestrel Freight Group refinancing (fictional sample)",
            "creator": "make_sample_materials.py", "producer": "PyMuPDF",
            "creationDate": PDF_DATE, "modDate": PDF_DATE, "keywords": "", "trapped": "",
        })
        self.doc.save(path, garbage=4, deflate=True, no_new_id=True)
        self.doc.close()


def fleet_valuation() -> None:
    fleet = FIGURES["fleet"]
    pdf = PdfWriter("Fleet valuation report - extract", "Albrecht & Teuling Asset Appraisal GmbH")
    pdf.text("Albrecht & Teuling Asset Appraisal GmbH", 9, True, 2)
    pdf.text("Transport and Logistics Asset Practice - Dusseldorf", 9, False, 14)
    pdf.text("Valuation of the tractor unit fleet of Kestrel Freight Group", 15, True, 4)
    pdf.text("Report extract: summary, scope and key figures (pages 1 to 3 of 24)", 10, False, 12)
    pdf.text("Addressee: the board of Kestrel Freight Holding B.V. Reliance: the addressee only; lenders may be given reliance by separate reliance letter. "
             "Valuation date: 31 October 2025. Report date: 21 November 2025. Inspection: physical inspection of a sample of 118 units at the three depots "
             "between 6 and 17 October 2025; remaining units valued from the fleet register and telematics data.", 10)
    pdf.text("1. Scope", 11, True, 4)
    pdf.text("The valuation covers all 904 tractor units operated by the group at the valuation date, whether owned or held under finance leases. "
             "Trailers are outside scope: the group hires its trailer fleet under operating rental agreements and does not own trailers. "
             "Units held under finance leases are included at the request of management for insurance purposes; legal title to those units "
             "rests with the lessors until the final lease payment.", 10)
    pdf.text("2. Bases of value", 11, True, 4)
    pdf.text("Fair market value (FMV): the estimated amount for which a unit would exchange between a willing buyer and a willing seller in an "
             "arm's length transaction after proper marketing, assuming continued use. Orderly liquidation value (OLV): the estimated gross amount "
             "realisable from a sale of the units within a marketing period of 120 days, with the seller compelled to sell on an as-is basis. "
             "All values exclude VAT and costs of sale.", 10)
    pdf.text("3. Summary of values (EUR million)", 11, True, 4)
    rows = []
    tot_units = tot_fmv = tot_olv = 0
    for key, label in (("owned", "Owned"), ("leased", "Finance-leased (lessor title)")):
        su = sf = so = 0
        for band, units, fmv, olv in fleet[key]:
            rows.append([f"{label}, age {band}", f"{units}", f"{fmv:.1f}", f"{olv:.1f}"])
            su, sf, so = su + units, sf + fmv, so + olv
        rows.append([f"Subtotal {label.lower()}", f"{su}", f"{sf:.1f}", f"{so:.1f}"])
        tot_units, tot_fmv, tot_olv = tot_units + su, tot_fmv + sf, tot_olv + so
    rows.append(["Total fleet in scope", f"{tot_units}", f"{tot_fmv:.1f}", f"{tot_olv:.1f}"])
    pdf.table(["Category", "Units", "FMV", "OLV"], rows, [250, 60, 80, 80])
    pdf.text("4. Key observations", 11, True, 4)
    for text in (
        "a) All units meet the Euro VI emission standard. Average age of the owned fleet is 4.9 years; of the leased fleet 1.6 years.",
        "b) Thirty-seven owned units in the 6 to 8 year band showed mileage above 900,000 km and are scheduled for replacement in 2026 under "
        "the group's capital plan; their OLV is reflected at scrap-plus-parts levels (EUR 0.4 million in total).",
        "c) The second-hand market for Euro VI tractor units softened during 2025; our OLV assumptions are 6% lower than in our October 2024 valuation "
        "for comparable age bands.",
        "d) Our values assume the units are free of encumbrances other than those disclosed to us. We have not verified title.",
    ):
        pdf.text(text, 10, False, 4)
    pdf.text("5. Limitations", 11, True, 4)
    pdf.text("This extract must be read with the full report. Values are at the valuation date and may change materially with market conditions. "
             "We accept no responsibility to parties other than the addressee except under a signed reliance letter.", 10)
    pdf.text("Signed for Albrecht & Teuling Asset Appraisal GmbH: M. Teuling, Dipl.-Ing., certified valuer for commercial vehicles.", 9, False, 4)
    pdf.save(OUT / "fleet-valuation-extract.pdf")


def permit_letter() -> None:
    pdf = PdfWriter("Venlo depot - environmental permit letter (courtesy translation)", "Maasgrens Environmental Service")
    pdf.text("Maasgrens Environmental Service", 12, True, 2)
    pdf.text("Acting for the Municipality of Venlo - Environmental Permits and Enforcement", 9, False, 2)
    pdf.text("Courtesy English translation prepared by Kestrel Freight Nederland B.V.; the Dutch original prevails.", 8, False, 14)
    pdf.text("To: Kestrel Freight Nederland B.V., attn. the Managing Director, Venlo depot (Trade Port site)", 10, False, 2)
    pdf.text("Date: 14 January 2026", 10, False, 2)
    pdf.text("Our reference: MES/2025/4471", 10, False, 2)
    pdf.text("Subject: inspection of 3 December 2025, environmental permit of the Venlo depot", 10, True, 12)
    pdf.text("Dear Sir or Madam,", 10)
    pdf.text("On 3 December 2025 our inspectors visited your cross-dock depot and vehicle yard at Venlo to check compliance with the environmental permit "
             "issued to your company on 9 March 2021 (the Permit). This letter sets out our findings and the steps we require.", 10)
    pdf.text("Findings", 11, True, 4)
    pdf.table(["Permit condition", "Subject", "Finding"], [
        ["Condition 1", "Noise limits, night loading", "Complied"],
        ["Condition 2", "Waste oil storage and disposal", "Complied"],
        ["Condition 3", "Surface water drainage, separator", "Complied"],
        ["Condition 4", "Truck washing installation", "Complied"],
        ["Condition 5", "Refrigerated trailer plug-in points", "Complied"],
        ["Condition 6", "Fire safety of dangerous goods bay", "Complied"],
        ["Condition 7", "Underground fuel storage tanks", "Not complied"],
    ], [110, 230, 135])
    pdf.text("Condition 7 requires that the two underground single-walled diesel storage tanks at the site (each of 50,000 litres, installed in 1998) "
             "be replaced by an above-ground double-walled installation with continuous leak detection, and that a soil investigation of the tank area "
             "be carried out and its report submitted to us, no later than 30 June 2026. At the inspection no works had started and no contractor had been engaged.", 10)
    pdf.text("What we require", 11, True, 4)
    pdf.text("1. A plan of action with a timetable for the works and the soil investigation, to be submitted within six weeks of the date of this letter.", 10, False, 3)
    pdf.text("2. Completion of the works and submission of the soil investigation report by 30 June 2026, as required by the Permit.", 10, False, 3)
    pdf.text("3. Should the soil investigation show contamination above intervention values, a remediation plan, which will be assessed separately.", 10, False, 8)
    pdf.text("If condition 7 is not met by 30 June 2026 we intend to impose an order subject to a penalty of EUR 25,000 for each week of non-compliance, "
             "up to a maximum of EUR 250,000, and we may prohibit refuelling from the existing tanks until the works are complete. "
             "A request to extend the deadline must be made in writing with reasons and a contractor's schedule; we decide on such a request within eight weeks.", 10)
    pdf.text("This letter is a notice of intent and not yet a decision open to objection. You may give your views within the six-week period.", 10)
    pdf.text("Yours faithfully,", 10, False, 2)
    pdf.text("J. Hendriks, senior enforcement officer, Maasgrens Environmental Service", 10, False, 2)
    pdf.save(OUT / "venlo-permit-letter.pdf")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    d = derive()
    management_accounts(d)
    facility_schedule(d)
    business_plan(d)
    shipments()
    diesel_index()
    euribor_curve()
    fleet_valuation()
    permit_letter()
    b = d["bs"][2]
    print("reported EBITDA", d["ebitda"], "restated FY2025", d["ebitda_restated_fy2025"])
    reported, restated = d["net_debt"][2] / d["ebitda"][2], d["net_debt"][2] / d["ebitda_restated_fy2025"]
    print("net debt", d["net_debt"], f"leverage FY2025 reported {reported:.2f}x restated {restated:.2f}x")
    print("balance sheet FY2025", b)
    print("cash flows", d["cfs"])
    print("wrote", ", ".join(sorted(p.name for p in OUT.iterdir() if p.suffix in (".xlsx", ".pdf", ".csv"))))


if __name__ == "__main__":
    main()
