# ruff: noqa: E501  (one service per line of data)
"""A synthetic catalogue of 1,000 realistic tools for the tool-search tests and benchmark.

One hundred plugins, each a service of its own domain (calendars, tickets, invoices, flights, smart
homes...), with ten tools each. The services overlap in words on purpose: every one of them lists,
creates, updates and deletes something, so a search has to find the right *thing*, not just the verb.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# plugin | entity | plural | what the service is (domain words) | argument: description, ...
_SERVICES = """
calendar|event|events|in the user's calendar; an event has a title, a start and end time, a location and attendees|title: the event title, start: start date and time, attendees: email addresses of the guests
rooms|room booking|room bookings|for the office meeting rooms and desks|room: the meeting room name, start: start time, duration_minutes: length of the booking
helpdesk|ticket|tickets|in the customer support help desk queue|subject: the ticket subject, priority: low, normal or urgent, requester: the customer's email
oncall|incident|incidents|for production outages handled by the on-call engineers|service: the affected service, severity: SEV1 to SEV4, summary: what is broken
bugtracker|issue|issues|in the software bug tracker of a project|project: the project key, title: a short summary of the bug, labels: labels such as regression
codereview|pull request|pull requests|on the code hosting platform, for reviewing and merging code changes|repository: owner/name, branch: the source branch, reviewers: who should review
repos|repository|repositories|of git source code on the code hosting platform|name: the repository name, visibility: public or private, default_branch: main branch name
deploys|deployment|deployments|of application releases to staging and production environments|application: the app name, version: the release version, environment: staging or production
cloudvm|virtual machine|virtual machines|of cloud compute servers (instances)|instance_type: the machine size, region: the data centre region, image: the operating system image
dns|DNS record|DNS records|of a domain name's zone (A, CNAME, MX, TXT records)|domain: the zone, record_type: A, CNAME, MX or TXT, value: the target address
dbbackup|database backup|database backups|snapshots of the PostgreSQL and MySQL databases|database: the database name, retention_days: how long to keep the snapshot
drive|file|files|in the user's cloud drive storage folders|path: the folder path, file_name: the file's name, mime_type: the content type
photos|photo|photos|in the photo library and albums|album: the album name, taken_on: the date the picture was taken, caption: a caption
video|video|videos|on the video hosting channel|title: the video title, visibility: public or unlisted, tags: keywords
music|playlist|playlists|of songs in the music streaming app|name: the playlist name, songs: track ids, public: whether others can see it
podcasts|podcast episode|podcast episodes|in the podcast player subscriptions|show: the podcast show, episode_number: the number, played: whether it was listened to
invoices|invoice|invoices|billing customers for work done, with line items, tax and a due date|customer: who is billed, amount: the total, due_date: when payment is due
expenses|expense report|expense reports|for employee spending reimbursement with receipts|employee: who spent, amount: the sum, category: travel, meals or supplies
payroll|payroll run|payroll runs|paying employee salaries and wages each pay period|period: the pay period, employees: who is paid, gross_total: gross pay total
budgets|budget|budgets|for planned spending limits per department and category|department: the team, limit: the spending cap, fiscal_year: the year
banking|bank transfer|bank transfers|moving money between bank accounts (wire, SEPA, ACH)|from_account: the source IBAN, to_account: the destination IBAN, amount: the sum
brokerage|stock order|stock orders|buying and selling shares on the stock exchange brokerage account|symbol: the ticker symbol, quantity: number of shares, side: buy or sell
crypto|crypto wallet|crypto wallets|holding bitcoin, ether and other cryptocurrency coins|chain: the blockchain, label: a wallet label, address: the public address
insurance|insurance claim|insurance claims|filed against car, home or health insurance policies|policy_number: the policy, incident_date: when it happened, damage: what was damaged
loans|loan application|loan applications|for mortgages and personal credit from the bank|applicant: who applies, principal: the borrowed sum, term_months: the duration
taxes|tax return|tax returns|filed with the tax authority for income tax each year|tax_year: the year, filing_status: single or joint, income: total income
crm|contact|contacts|people and companies in the customer relationship manager address book|name: the person's name, company: the employer, phone: a phone number
leads|lead|leads|sales prospects that marketing captured and sales should qualify|source: where the lead came from, score: a qualification score, owner: the sales rep
deals|deal|deals|in the sales pipeline, with stages from prospecting to closed won|account: the customer account, value: the deal value, stage: the pipeline stage
livechat|chat conversation|chat conversations|live chat with website visitors|visitor: the visitor id, agent: the support agent, transcript: the messages
mail|email message|email messages|in the user's mailbox inbox and folders|to: recipients, subject: the subject line, body: the message text
newsletter|newsletter campaign|newsletter campaigns|of marketing emails sent to a mailing list of subscribers|audience: the subscriber list, subject: the subject line, send_at: when to send
sms|text message|text messages|sent as SMS to mobile phone numbers|phone_number: the recipient, text: the message body, sender_id: the sender name
telephony|call recording|call recordings|of phone calls made through the company phone system|caller: who called, callee: who was called, duration_seconds: the call length
teamchat|channel|channels|in the team messaging workspace (like chat rooms for a group)|name: the channel name, members: who is in it, topic: the channel topic
forum|forum post|forum posts|in the community discussion board threads|thread: the thread id, author: who wrote it, body: the post text
blog|blog article|blog articles|published on the company blog website|title: the headline, author: the writer, publish_at: when it goes live
wiki|wiki page|wiki pages|in the internal knowledge base wiki|space: the wiki space, title: the page title, content: the page body in Markdown
docs|document|documents|word-processing text documents edited together online|title: the document title, owner: who owns it, folder: where it lives
sheets|spreadsheet|spreadsheets|with rows, columns, cells and formulas|title: the spreadsheet title, sheet: the tab name, range: a cell range like A1:C10
slides|slide deck|slide decks|presentations with slides for meetings|title: the presentation title, theme: the visual theme, slide_count: number of slides
notes|note|notes|quick personal notes in the note-taking app|title: the note title, text: the note body, notebook: the notebook
todo|task|tasks|on the personal to-do list with due dates and reminders|title: what to do, due: the due date, list_name: the to-do list
projects|project|projects|in the project management tool, with owners and status|name: the project name, owner: the lead, status: on track, at risk or late
milestones|milestone|milestones|deadlines and goals of a project roadmap|project: the project, name: the milestone name, target_date: the deadline
timesheets|timesheet entry|timesheet entries|hours worked logged per project for billing|project: the project, hours: hours worked, work_date: the day
hr|employee record|employee records|in the human resources directory of staff|full_name: the employee's name, department: the team, start_date: the hire date
jobs|job posting|job postings|open positions advertised on the careers page|title: the job title, location: where the job is, salary_range: the pay range
recruiting|candidate|candidates|applicants in the hiring pipeline with their resumes|name: the applicant's name, position: the role applied for, stage: the hiring stage
interviews|interview|interviews|scheduled between candidates and the hiring panel|candidate: the applicant, interviewers: the panel, slot: the interview time
leave|vacation request|vacation requests|for paid time off, holidays and sick leave approval|employee: who is away, from_date: the first day off, to_date: the last day off
learning|training course|training courses|in the employee learning platform with lessons and certificates|title: the course title, duration_hours: its length, mandatory: whether required
grades|student grade|student grades|for school classes, exams and report cards|student: the student, course: the class, score: the mark
library|book loan|book loans|borrowing books from the public library|isbn: the book's ISBN, member: the library card holder, due_date: the return date
recipes|recipe|recipes|for cooking meals, with ingredients and steps|dish: the dish name, ingredients: what is needed, servings: how many people
groceries|shopping list|shopping lists|of groceries to buy at the supermarket|store: the supermarket, items: what to buy, quantity: how many
restaurants|table reservation|table reservations|at restaurants for dinner or lunch|restaurant: the restaurant, party_size: number of guests, time: the reservation time
fooddelivery|food order|food orders|for takeaway meals delivered by couriers|restaurant: where from, dishes: what to eat, address: where to deliver
flights|flight booking|flight bookings|airline tickets with seats and boarding passes|origin: departure airport, destination: arrival airport, departure_date: the travel date
hotels|hotel reservation|hotel reservations|rooms booked at hotels for a stay|hotel: the hotel name, check_in: arrival date, nights: number of nights
carrental|car rental|car rentals|hire cars picked up at a rental desk|pickup_location: where to collect, pickup_date: the start date, car_class: economy, compact or SUV
trains|train ticket|train tickets|rail journeys between stations with seat reservations|from_station: departure station, to_station: arrival station, travel_date: the date
shipping|parcel shipment|parcel shipments|packages sent with a courier, with tracking numbers|recipient: who receives it, weight_kg: parcel weight, service: express or standard
warehouse|inventory item|inventory items|stock levels of products stored in the warehouse|sku: the stock keeping unit, quantity: units on hand, bin: the shelf location
storefront|product listing|product listings|items for sale in the online shop catalogue|name: the product name, price: the selling price, category: the shop category
carts|shopping cart|shopping carts|of customers checking out in the online shop|customer: the shopper, items: products and quantities, currency: the currency
reviews|customer review|customer reviews|star ratings and comments customers left for products|product: the reviewed product, rating: 1 to 5 stars, comment: the review text
coupons|discount coupon|discount coupons|promo codes giving a percentage off at checkout|code: the promo code, percent_off: the discount, expires_on: the expiry date
subscriptions|subscription plan|subscription plans|recurring monthly or yearly billing of customers|plan: the plan name, price: the recurring price, interval: month or year
fitness|workout|workouts|exercise sessions logged in the fitness tracker (runs, rides, gym)|activity: running, cycling or strength, duration_minutes: how long, calories: energy burned
nutrition|meal log|meal logs|of what the user ate, with calories and macros|meal: breakfast, lunch or dinner, foods: what was eaten, calories: energy
medication|medication reminder|medication reminders|for taking pills and medicine doses on time|drug: the medicine, dose: how much, times: when to take it
clinic|doctor appointment|doctor appointments|visits with physicians at the medical clinic|doctor: the physician, reason: why the patient comes, slot: the appointment time
labresults|lab result|lab results|blood tests and other laboratory test reports of a patient|patient: the patient id, test: the test name, collected_on: the sample date
vet|pet visit|pet visits|at the veterinary clinic for dogs, cats and other animals|pet: the pet's name, species: dog, cat or other, reason: why it is seen
weather|weather forecast|weather forecasts|for a city: temperature, rain, wind and conditions for the coming days|location: the city, days: how many days ahead, units: metric or imperial
airquality|air quality reading|air quality readings|from pollution sensors (AQI, PM2.5, ozone)|location: the city, pollutant: PM2.5, PM10 or ozone, hours: the time window
traffic|traffic report|traffic reports|road congestion, accidents and jams along a route|road: the highway or street, direction: the travel direction, radius_km: the area
parking|parking spot|parking spots|in car parks and garages, reserved by the hour|garage: the car park, plate: the licence plate, hours: how long
evcharging|charging session|charging sessions|for electric cars at EV charging stations|station: the charger, connector: CCS, CHAdeMO or Type 2, kwh: energy delivered
lights|smart light|smart lights|connected lamps and bulbs in the home (on, off, brightness, colour)|room: the room, brightness: 0 to 100 percent, color: the light colour
thermostat|thermostat schedule|thermostat schedules|heating and cooling temperature setpoints of the home|zone: the heating zone, temperature: the target degrees, mode: heat, cool or auto
cameras|camera clip|camera clips|motion recordings from home security cameras|camera: the camera name, recorded_at: when motion was seen, length_seconds: clip length
alarm|alarm event|alarm events|from the home burglar alarm system (armed, disarmed, triggered)|zone: the sensor zone, state: armed or disarmed, code: the keypad code
garden|watering schedule|watering schedules|for lawn sprinklers and garden irrigation|zone: the sprinkler zone, minutes: watering time, days: which weekdays
translate|translation job|translation jobs|translating text and documents between languages|text: the text to translate, source_language: from, target_language: to
maps|route|routes|driving, walking or cycling directions between places on the map|origin: the start address, destination: the end address, mode: drive, walk or bike
places|place|places|points of interest such as shops, museums and cafés nearby|query: what to look for, latitude: the latitude, longitude: the longitude
tickets|concert ticket|concert tickets|for live music, theatre and sports events at venues|event: the show, seats: seat numbers, venue: the venue
sports|match score|match scores|live results of football, basketball and tennis games|league: the competition, team: the team, date: the match day
news|news article|news articles|headlines from newspapers and news agencies|topic: the subject, language: the article language, since: published after
fx|exchange rate|exchange rates|currency conversion rates (EUR, USD, JPY)|base: the base currency, quote: the quote currency, date: the rate date
vault|password entry|password entries|stored logins in the password manager vault|site: the website, username: the login name, folder: the vault folder
sshkeys|SSH key|SSH keys|public keys allowed to log in to servers over SSH|title: the key label, public_key: the key text, expires_on: the expiry date
apitokens|API token|API tokens|personal access tokens for the developer API|name: the token label, scopes: what it may access, expires_on: the expiry date
monitoring|metric alert|metric alerts|rules that page when a CPU, latency or error-rate metric crosses a threshold|metric: the metric name, threshold: the alert level, window_minutes: evaluation window
flags|feature flag|feature flags|toggles that turn product features on or off for users|key: the flag key, enabled: on or off, rollout_percent: share of users
experiments|A/B experiment|A/B experiments|split tests comparing product variants and conversion|name: the experiment name, variants: the variants, traffic_percent: share of traffic
surveys|survey|surveys|questionnaires sent to customers or staff to collect answers|title: the survey title, questions: the questions, audience: who answers
forms|form response|form responses|submissions to web forms such as sign-ups and contact forms|form: the form id, submitted_after: date filter, email: the submitter
"""

# action | template of the description ({entity}, {plural}, {context}) | extra argument (name: description) or ""
_ACTIONS = (
    ("list", "List the {plural} {context}, newest first, with optional filters.", "limit: how many to return"),
    ("get", "Get one {entity} {context} by its id, with all its details.", "{entity_key}_id: the id"),
    ("create", "Create a new {entity} {context}.", ""),
    ("update", "Update the fields of an existing {entity} {context}.", "{entity_key}_id: the id"),
    ("delete", "Delete a {entity} {context} permanently.", "{entity_key}_id: the id"),
    ("search", "Search {plural} {context} by keywords.", "query: the words to look for"),
    ("export", "Export {plural} {context} to a CSV or PDF file.", "format: csv or pdf"),
    (
        "share",
        "Share a {entity} {context} with another person by email.",
        "{entity_key}_id: the id, email: who gets access",
    ),
    ("archive", "Archive a {entity} {context} so it no longer shows in lists.", "{entity_key}_id: the id"),
    (
        "stats",
        "Report statistics and totals for {plural} {context} over a date range.",
        "from_date: start, to_date: end",
    ),
)


@dataclass(frozen=True, slots=True)
class CatalogueTool:
    """One generated tool: its plugin, id, title, description and JSON Schema."""

    plugin: str
    id: str
    title: str
    description: str
    parameters: dict[str, Any]


def _key(entity: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in entity.lower()).strip("_")


def _arguments(spec: str, entity_key: str) -> list[tuple[str, str]]:
    pairs = []
    for item in spec.split(", "):
        if not item.strip():
            continue
        name, _, text = item.partition(": ")
        pairs.append((name.strip().format(entity_key=entity_key), text.strip()))
    return pairs


def _schema(arguments: list[tuple[str, str]], required: list[str]) -> dict[str, Any]:
    properties = {name: {"type": "string", "description": text} for name, text in arguments}
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def services() -> list[tuple[str, str, str, str, str]]:
    """The hundred services: plugin, entity, plural, context, argument spec."""
    rows = []
    for line in _SERVICES.strip().splitlines():
        plugin, entity, plural, context, arguments = line.split("|")
        rows.append((plugin, entity, plural, context, arguments))
    return rows


def build_catalogue() -> list[CatalogueTool]:
    """The 1,000 tools, in a stable order."""
    tools: list[CatalogueTool] = []
    for plugin, entity, plural, context, entity_arguments in services():
        entity_key = _key(entity)
        for action, template, extra in _ACTIONS:
            description = template.format(entity=entity, plural=plural, context=context)
            arguments = _arguments(extra, entity_key)
            if action in ("create", "update"):
                arguments += _arguments(entity_arguments, entity_key)
            if action == "list":
                arguments += _arguments(entity_arguments, entity_key)[:1]
            required = [arguments[0][0]] if arguments and action not in ("list", "export", "stats") else []
            tool_id = (
                f"{plugin}_{action}_{entity_key}"
                if action not in ("list", "search", "export", "stats")
                else (f"{plugin}_{action}_{_key(plural)}")
            )
            title = f"{action.capitalize()} {plural if action in ('list', 'search', 'export', 'stats') else entity}"
            tools.append(CatalogueTool(plugin, tool_id, title, description, _schema(arguments, required)))
    return tools


def tool_id(plugin: str, action: str) -> str:
    """The id of a plugin's tool for an action (``list``, ``create``...)."""
    for tool in build_catalogue_cached():
        if tool.plugin == plugin and tool.id.startswith(f"{plugin}_{action}_"):
            return tool.id
    raise KeyError((plugin, action))


_CACHE: list[CatalogueTool] = []


def build_catalogue_cached() -> list[CatalogueTool]:
    """build_catalogue(), built once per process."""
    if not _CACHE:
        _CACHE.extend(build_catalogue())
    return _CACHE
